/**
 * What a backup copies: the data folder read once, before anything is written, so the free-space
 * check knows the size and a file no backup can take (a FIFO, a socket, a device) is refused before a
 * byte is copied. A `data/` that is itself a symlink (data kept on another volume) is followed: the
 * backup holds the files, not a copy of the link. Links further down are kept as links.
 */
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

import { ChainvisorError, isErrno } from '../../shared/errors/index.js';
import { describeType } from '../../shared/fsread/index.js';
import { runPool } from './pool.js';

export interface TreeEntry {
  /** Path relative to the data folder; '' for the folder itself. */
  rel: string;
  kind: 'dir' | 'file' | 'symlink';
  size: number;
  mode: number;
  /** Seconds since the epoch, with the fraction (what utimes takes; a Date would round to the ms). */
  atime: number;
  mtime: number;
}

export interface Tree {
  /** The data folder as given. */
  dataDir: string;
  /** Where its content really is (the target of a symlinked `data/`). */
  root: string;
  /** Folders first, parents before children (the folder itself is the first entry). */
  dirs: TreeEntry[];
  files: TreeEntry[];
  symlinks: TreeEntry[];
  /** Bytes of regular files. */
  bytes: number;
}

/** What to throw for something a tree cannot hold: `file`, and what it is (`a FIFO`, `a regular file` for the top). */
export type Refusal = (file: string, type: string) => ChainvisorError;

/** `refuse`: the error for something that is not a file, folder or link; a backup's by default. */
export async function readTree(dataDir: string, signal?: AbortSignal, refuse: Refusal = unsupported): Promise<Tree> {
  const root = await fs.realpath(dataDir);
  const rootStat = await fs.stat(root);
  if (!rootStat.isDirectory()) throw refuse(dataDir, describeType(rootStat));
  const tree: Tree = { dataDir, root, dirs: [entryOf('', rootStat, 'dir')], files: [], symlinks: [], bytes: 0 };
  // Breadth first: each level's folders are listed, then their children examined, a dozen at a time.
  let level = [''];
  while (level.length > 0) {
    const children: string[] = [];
    await runPool(
      level,
      16,
      async (rel) => {
        for (const name of await gone(fs.readdir(path.join(root, rel)), [])) children.push(path.join(rel, name));
      },
      signal,
    );
    const nextLevel: string[] = [];
    await runPool(
      children,
      16,
      async (rel) => {
        const stat = await gone(fs.lstat(path.join(root, rel)), undefined);
        if (stat === undefined) return;
        if (stat.isDirectory()) {
          tree.dirs.push(entryOf(rel, stat, 'dir'));
          nextLevel.push(rel);
        } else if (stat.isFile()) {
          tree.files.push(entryOf(rel, stat, 'file'));
          tree.bytes += stat.size;
        } else if (stat.isSymbolicLink()) {
          tree.symlinks.push(entryOf(rel, stat, 'symlink'));
        } else {
          throw refuse(path.join(dataDir, rel), describeType(stat));
        }
      },
      signal,
    );
    level = nextLevel;
  }
  // Parents before children for creation (levels already are); largest files first keeps the workers
  // busy to the end instead of one 64 MiB table copied alone after all the small files.
  tree.files.sort((a, b) => b.size - a.size);
  return tree;
}

/**
 * What was listed and is gone by the time it is looked at: nothing to copy. A rehearsal reads the tree of
 * a running node, which replaces files by renaming temporary ones every block (its signing state): a
 * listed `.priv_validator_state.json.<pid>.tmp` is often gone a moment later.
 */
async function gone<T, D>(look: Promise<T>, absent: D): Promise<T | D> {
  try {
    return await look;
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return absent;
    throw error;
  }
}

function entryOf(rel: string, stat: Stats, kind: TreeEntry['kind']): TreeEntry {
  return { rel, kind, size: kind === 'file' ? stat.size : 0, mode: stat.mode & 0o7777, atime: stat.atimeMs / 1000, mtime: stat.mtimeMs / 1000 };
}

function unsupported(file: string, type: string): ChainvisorError {
  return new ChainvisorError('CHAINVISOR_BACKUP_FAILED', `${file} is ${type}, which a backup cannot hold`, {
    hint: 'move it out of the data folder',
  });
}
