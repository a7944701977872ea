/**
 * Folders into and out of `upgrades/`, for the halt's download and for staging alike: a verified,
 * extracted folder becomes `upgrades/<dir>` in one rename, after its contents are on disk; a folder
 * already there without a binary is removed when empty, else moved aside (never deleted).
 * Why, and the rest of its rules: docs/design/home-layout.md#homelayoutinstall-folderts.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import { isErrno } from '../../shared/errors/index.js';
import { exists } from '../../shared/fsread/index.js';
import { fsyncDir, makeFolders } from '../../shared/fswrite/index.js';
import type { Logger } from '../../shared/log.js';

export interface InstallFolderOptions {
  /** The extracted folder, on the same filesystem as `target`. */
  staged: string;
  /** `layout.root/upgrades/<dir>`. */
  target: string;
  logger: Logger;
  /** For tests. */
  now?: () => Date;
}

/** Moves `staged` to `target`; returns where a previous folder was moved, if one was. */
export async function installFolder(options: InstallFolderOptions): Promise<{ replaced: string | undefined }> {
  const { staged, target, logger } = options;
  await syncTree(staged);
  const parent = path.dirname(target);
  await makeFolders(parent);
  const replaced = await clearTarget(target, logger, options.now ?? (() => new Date()));
  await fs.rename(staged, target);
  await fsyncDir(parent);
  return { replaced };
}

async function clearTarget(target: string, logger: Logger, now: () => Date): Promise<string | undefined> {
  let stat;
  try {
    stat = await fs.lstat(target);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined;
    throw error;
  }
  if (stat.isDirectory() && (await holdsNoFiles(target))) {
    await fs.rm(target, { recursive: true });
    logger.info({ folder: target }, 'removed an empty upgrade folder left by an earlier attempt');
    return undefined;
  }
  return moveAside(target, logger, 'an upgrade folder without a usable binary was in the way', now);
}

/**
 * Moves `folder` to `<folder>.replaced-<UTC time>` and warns with `why`; returns where it went, or
 * undefined when there was nothing to move.
 */
export async function moveAside(folder: string, logger: Logger, why: string, now: () => Date = () => new Date()): Promise<string | undefined> {
  const stamp = now()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  let aside = `${folder}.replaced-${stamp}`;
  for (let n = 2; await exists(aside); n++) aside = `${folder}.replaced-${stamp}-${n}`;
  try {
    await fs.rename(folder, aside);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined;
    throw error;
  }
  logger.warn({ folder, movedTo: aside }, `${why}; it was moved aside (not deleted) — remove it once you have looked at it`);
  return aside;
}

/** True when the folder holds only (nested) empty folders. */
async function holdsNoFiles(dir: string): Promise<boolean> {
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || !(await holdsNoFiles(path.join(dir, entry.name)))) return false;
  }
  return true;
}

/** fsync every regular file and folder under `dir` (links need none). */
async function syncTree(dir: string): Promise<void> {
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await syncTree(full);
    else if (entry.isFile()) await syncFile(full);
  }
  await fsyncDir(dir);
}

async function syncFile(file: string): Promise<void> {
  const handle = await fs.open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
