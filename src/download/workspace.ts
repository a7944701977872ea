/**
 * The temporary folder a download works in: beside `upgrades/` (same filesystem, so the finished
 * folder moves into place with one rename), named `.download-<pid>-<random>-<dir>`. It is removed
 * when the attempt ends, whatever the outcome; one left by a crash is removed by the next attempt.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { isErrno } from '../errors/index.js';
import type { Logger } from '../log/index.js';

export interface Workspace {
  path: string;
  remove(): Promise<void>;
}

const prefix = '.download-';
/** Folders in use by this process, never treated as stale. */
const active = new Set<string>();
/** A live process's folder is left alone unless it is this old (the pid may have been reused). */
const staleAfterMs = 24 * 60 * 60 * 1000;

/** Creates the work folder for `upgrades/<dirName>` and clears stale ones. */
export async function createWorkspace(options: { root: string; upgradesDir: string; dirName: string; logger: Logger }): Promise<Workspace> {
  await fs.mkdir(options.upgradesDir, { recursive: true });
  const parent = await sameDevice(options.root, options.upgradesDir) ? options.root : options.upgradesDir;
  await removeStale(parent, options.logger);
  const name = `${prefix}${process.pid}-${randomBytes(4).toString('hex')}-${options.dirName.slice(0, 100)}`;
  const dir = path.join(parent, name);
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

async function removeStale(parent: string, logger: Logger): Promise<void> {
  for (const entry of await fs.readdir(parent, { withFileTypes: true })) {
    if (!entry.isDirectory() || !entry.name.startsWith(prefix)) continue;
    const dir = path.join(parent, entry.name);
    if (active.has(dir)) continue;
    const pid = Number(/^\.download-(\d+)-/.exec(entry.name)?.[1]);
    if (Number.isSafeInteger(pid) && pid !== process.pid && isAlive(pid) && !(await olderThan(dir, staleAfterMs))) continue;
    await fs.rm(dir, { recursive: true, force: true });
    logger.info({ folder: dir }, 'removed the work folder of an interrupted download');
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return !isErrno(error, 'ESRCH');
  }
}

async function olderThan(dir: string, ms: number): Promise<boolean> {
  try {
    return Date.now() - (await fs.stat(dir)).mtimeMs > ms;
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return false;
    throw error;
  }
}
