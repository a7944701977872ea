/**
 * The hidden folders downloads work in, `.download-<pid>-<random>-<dir>` beside `upgrades/` (or inside
 * it when it is on another disk). A chainvisor killed mid-download leaves its folder behind — possibly
 * gigabytes of a half-extracted archive — so `run` clears them at start, once it holds the home lock.
 *
 * A folder is left alone only while the process that made it is alive: its pid is running, and that
 * process started before the folder was last written (a pid reused by a later process does not
 * count). `chainvisor prepare-upgrade` may be downloading beside a `run`; its folder stays.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import { isErrno, isFsError, layoutFsError } from '../../shared/errors/index.js';
import type { Logger } from '../../shared/log.js';
import { isProcessAlive, processStartedAtMs } from '../../shared/proc/index.js';

const workFolderPrefix = '.download-';

/** A live process's folder is left alone unless it is this old (whatever its pid says). */
const staleAfterMs = 24 * 60 * 60 * 1000;
/** The start time from /proc is exact to a second at best; a folder is the owner's if not older than this. */
const clockSlackMs = 5000;

export function workFolderName(pid: number, random: string, dirName: string): string {
  return `${workFolderPrefix}${pid}-${random}-${dirName.slice(0, 100)}`;
}

export interface RemoveOptions {
  /** Folders that hold work folders: `$DAEMON_HOME/cosmovisor` and `upgrades/`. */
  parents: readonly string[];
  logger: Logger;
  /** Folders this process is using. */
  keep?: ReadonlySet<string>;
}

/** Removes work folders whose download is no longer running; returns their paths. */
export async function removeLeftoverWorkFolders(options: RemoveOptions): Promise<string[]> {
  const removed: string[] = [];
  for (const parent of new Set(options.parents)) {
    let entries;
    try {
      entries = await fs.readdir(parent, { withFileTypes: true });
    } catch (error) {
      if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR')) continue;
      throw isFsError(error) ? layoutFsError(parent, 'list', error) : error;
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || !entry.name.startsWith(workFolderPrefix)) continue;
      const dir = path.join(parent, entry.name);
      if (options.keep?.has(dir) || (await ownerRunning(dir, entry.name))) continue;
      try {
        await fs.rm(dir, { recursive: true, force: true });
      } catch (error) {
        throw isFsError(error) ? layoutFsError(dir, 'remove', error) : error;
      }
      removed.push(dir);
      options.logger.info({ folder: dir }, 'removed the work folder of an interrupted download: %s', dir);
    }
  }
  return removed;
}

async function ownerRunning(dir: string, name: string): Promise<boolean> {
  const pid = Number(/^\.download-(\d+)-/.exec(name)?.[1]);
  if (!Number.isSafeInteger(pid) || pid === process.pid || !(await isProcessAlive(pid))) return false;
  let modifiedMs: number;
  try {
    modifiedMs = (await fs.stat(dir)).mtimeMs;
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return true; // already gone: nothing to do
    throw isFsError(error) ? layoutFsError(dir, 'examine', error) : error;
  }
  if (Date.now() - modifiedMs > staleAfterMs) return false;
  const startedMs = await processStartedAtMs(pid);
  // A process that started after the folder was last written did not make it: the pid was reused.
  return startedMs === undefined || startedMs <= modifiedMs + clockSlackMs;
}
