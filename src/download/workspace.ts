/**
 * The temporary folder a download works in: beside `upgrades/` (same filesystem, so the finished
 * folder moves into place with one rename), named `.download-<pid>-<random>-<dir>`. It is removed
 * when the attempt ends, whatever the outcome; one left by a crash is removed by the next attempt and
 * by the next `chainvisor run` at start (layout/work-folders.ts).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

import { removeLeftoverWorkFolders, workFolderName } from '../home/layout/index.js';
import { makeFolders } from '../shared/fswrite/index.js';
import type { Logger } from '../shared/log.js';

export interface Workspace {
  path: string;
  remove(): Promise<void>;
}

/** Folders in use by this process, never treated as stale. */
const active = new Set<string>();

/** Creates the work folder for `upgrades/<dirName>` and clears stale ones. */
export async function createWorkspace(options: { root: string; upgradesDir: string; dirName: string; logger: Logger }): Promise<Workspace> {
  await makeFolders(options.upgradesDir);
  const parent = (await sameDevice(options.root, options.upgradesDir)) ? options.root : options.upgradesDir;
  await removeLeftoverWorkFolders({ parents: [parent], logger: options.logger, keep: active });
  const dir = path.join(parent, workFolderName(process.pid, randomBytes(4).toString('hex'), options.dirName));
  await fs.mkdir(dir, { mode: 0o700 });
  active.add(dir);
  return {
    path: dir,
    async remove() {
      await fs.rm(dir, { recursive: true, force: true });
      active.delete(dir);
    },
  };
}

/** `upgrades/` may be a link to another disk; then work inside it so the final rename stays atomic. */
async function sameDevice(a: string, b: string): Promise<boolean> {
  const [sa, sb] = await Promise.all([fs.stat(a), fs.stat(b)]);
  return sa.dev === sb.dev;
}
