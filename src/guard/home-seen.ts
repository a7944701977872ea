/**
 * Where the node lives, as its command line or its open files say, against DAEMON_HOME (issue #43):
 * the folders compared by real path, the data folder told by the databases the node holds open
 * (`<data>/application.db/…`, `blockstore.db`, `cs.wal`, `priv_validator_state.json`), and whether a
 * home has a local validator key (as the sign guard decides: a key file and no remote signer).
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import { nodeHomeFlag, nodeSetting, readNodeToml } from '../chain/index.js';
import { isFsError } from '../shared/errors/index.js';
import type { HomePaths } from './home-paths.js';
import { nodeSigning } from './sign-state.js';
import { readValidatorAddress } from './validator-key.js';

/** Another home than DAEMON_HOME, and how it was seen. */
export interface ElsewhereHome {
  nodeHome: string;
  daemonHome: string;
  /** The open file that showed it, or null for the flag. */
  file: string | null;
}

/** The real path, or the absolute one for a path that does not exist (yet) or cannot be examined. */
async function real(dir: string): Promise<string> {
  try {
    return await fs.realpath(dir);
  } catch (error) {
    // A folder that does not exist, or that this user cannot examine: compared as written, never a crash.
    if (isFsError(error)) return path.resolve(dir);
    throw error;
  }
}

/** The node's `--home` when it names another folder than DAEMON_HOME; undefined without one or when it is the same. */
export async function homeByFlag(layout: HomePaths, args: readonly string[]): Promise<ElsewhereHome | undefined> {
  const flag = nodeHomeFlag(args);
  if (flag === undefined) return undefined;
  const [nodeHome, daemonHome] = await Promise.all([real(flag), real(layout.home)]);
  return nodeHome === daemonHome ? undefined : { nodeHome, daemonHome, file: null };
}

/** The folder a data file or database lies in (the one above `application.db`, `cs.wal` …), or undefined for any other file. */
function dataFolderOf(file: string): string | undefined {
  const parts = file.split('/');
  const at = parts.findIndex((part, i) => i > 0 && (part.endsWith('.db') || part === 'cs.wal'));
  if (at > 1) return parts.slice(0, at).join('/');
  return path.basename(file) === 'priv_validator_state.json' ? path.dirname(file) : undefined;
}

/** The home of a data folder: the folder above its nearest `data`, else the folder above it. */
function homeOfData(dataFolder: string): string {
  const parts = dataFolder.split('/');
  const data = parts.lastIndexOf('data');
  return data > 0 ? parts.slice(0, data).join('/') || '/' : path.dirname(dataFolder);
}

/**
 * What the node's open files say: `undefined` while they show no data file (the node is still
 * starting), `same` when every data file is under DAEMON_HOME's data folder (or config.toml's
 * `db_dir`), else the other home and the first file that shows it.
 */
export async function homeByOpenFiles(layout: HomePaths, files: readonly string[]): Promise<ElsewhereHome | 'same' | undefined> {
  const seen = files.flatMap((file) => {
    const folder = dataFolderOf(file);
    return folder === undefined ? [] : [{ file, folder }];
  });
  if (seen.length === 0) return undefined;
  const dbDir = nodeSetting(await readNodeToml(layout.home, 'config.toml'), 'db_dir');
  const expected = await Promise.all([layout.dataDir, ...(dbDir === undefined ? [] : [path.resolve(layout.home, dbDir)])].map(real));
  const inside = (folder: string) => expected.some((dir) => folder === dir || folder.startsWith(`${dir}/`));
  const outside = seen.find(({ folder }) => !inside(folder));
  if (outside === undefined) return 'same';
  return { nodeHome: homeOfData(outside.folder), daemonHome: await real(layout.home), file: outside.file };
}

/** The key file of a home that signs with a local key (no remote signer, a key file present); undefined otherwise. */
export async function localKeyOf(home: string): Promise<string | undefined> {
  const signing = await nodeSigning(home);
  if (signing.remoteSigner !== '') return undefined;
  const key = await readValidatorAddress(signing.keyFile);
  return key.status === 'missing' ? undefined : key.file;
}
