/**
 * A backup of `$DAEMON_HOME/data` before the new binary migrates it: read the tree, choose the mode,
 * check the free space, then write it under a hidden partial name and rename it when whole, so a folder
 * named `data-backup-*` is always a complete backup. Files go through a dozen workers at once. Any
 * failure (or an abort) removes the partial copy; nothing is switched.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import { ChainvisorError, isErrno } from '../../shared/errors/index.js';
import { fsyncDir } from '../../shared/fswrite/index.js';
import type { Logger } from '../../shared/log.js';
import { formatBytesExact } from '../../shared/units.js';
import { chooseMode, type RequestedMode } from './mode.js';
import { backupTarget, partialPath } from './names.js';
import { type BackupMode, createPlacer } from './place.js';
import { runPool } from './pool.js';
import { checkSpace, type StatfsFn } from './space.js';
import { readTree, type TreeEntry } from './tree.js';

export interface BackupOptions {
  dataDir: string;
  backupDir: string;
  logger: Logger;
  /** CHAINVISOR_BACKUP_MODE; `auto` when absent. */
  mode?: RequestedMode;
  /** Called with the bytes done and the total as files are written. */
  onProgress?: (bytes: number, total: number) => void;
  /** Stops the backup (the partial copy is removed, the abort reason thrown). */
  signal?: AbortSignal;
  now?: Date;
  /** Files written at once. */
  concurrency?: number;
  /** Test hook: the free-space query (fs.statfs). */
  statfs?: StatfsFn;
}

export interface BackupResult {
  path: string;
  mode: BackupMode;
  /** Bytes of the data's files, and how many files (links included). */
  bytes: number;
  files: number;
  linked: number;
  cloned: number;
  copied: number;
  ms: number;
}

export async function backupData(options: BackupOptions): Promise<BackupResult | undefined> {
  const { dataDir, backupDir, logger, signal } = options;
  const now = options.now ?? new Date();
  const started = Date.now();
  let target = path.join(backupDir, 'data-backup-…');
  let partial: string | undefined;
  try {
    try {
      await fs.lstat(dataDir);
    } catch (error) {
      if (!isErrno(error, 'ENOENT')) throw error;
      logger.warn({ dataDir }, 'no data folder to back up');
      return undefined;
    }
    target = await backupTarget(backupDir, now);
    const tree = await readTree(dataDir, signal);
    if (tree.root !== path.resolve(dataDir)) logger.info({ dataDir, root: tree.root }, `${dataDir} leads to ${tree.root}: backing up the files there`);
    const { mode, reason } = await chooseMode({ requested: options.mode ?? 'auto', tree, backupDir, logger });
    const space = await checkSpace({ tree, mode, backupDir, ...(options.statfs ? { statfs: options.statfs } : {}) });
    logger.info(
      { from: dataDir, to: target, mode, reason, files: tree.files.length, bytes: tree.bytes, needed: space.needed, available: space.available },
      `backing up data before the upgrade: ${tree.files.length} files, ${formatBytesExact(tree.bytes)}, mode ${mode} (set UNSAFE_SKIP_BACKUP=true to skip)`,
    );

    partial = partialPath(target);
    const into = partial;
    const placer = createPlacer({ mode, logger, backupDir });
    let done = 0;
    const onBytes = (n: number): void => {
      done += n;
      options.onProgress?.(done, tree.bytes);
    };
    for (const dir of tree.dirs) await fs.mkdir(path.join(into, dir.rel), { mode: 0o700 });
    await runPool(
      tree.files,
      options.concurrency ?? 12,
      (file) => placer.place(path.join(tree.root, file.rel), path.join(into, file.rel), file, onBytes),
      signal,
    );
    await runPool(tree.symlinks, options.concurrency ?? 12, (link) => copySymlink(path.join(tree.root, link.rel), path.join(into, link.rel), link), signal);
    // Folders last, deepest first: their own mode (a read-only folder would refuse its children) and
    // times (every file created in them changed their mtime).
    for (const dir of [...tree.dirs].reverse()) await keepDir(path.join(into, dir.rel), dir);
    signal?.throwIfAborted();
    await fs.rename(into, target);
    partial = undefined;
    await fsyncDir(backupDir);
    const ms = Date.now() - started;
    const { linked, cloned, copied } = placer.counts;
    logger.info(
      { to: target, mode, ms, files: tree.files.length, bytes: tree.bytes, linked, cloned, copied },
      `backup complete in ${(ms / 1000).toFixed(1)} s`,
    );
    return { path: target, mode, bytes: tree.bytes, files: tree.files.length, linked, cloned, copied, ms };
  } catch (error) {
    if (partial !== undefined) await fs.rm(partial, { recursive: true, force: true });
    if (signal?.aborted && error === signal.reason) throw error;
    if (error instanceof ChainvisorError && error.code === 'CHAINVISOR_BACKUP_NO_SPACE') throw error;
    throw failed(dataDir, target, backupDir, error);
  }
}

async function copySymlink(src: string, dst: string, entry: TreeEntry): Promise<void> {
  await fs.symlink(await fs.readlink(src), dst);
  await fs.lutimes(dst, entry.atime, entry.mtime);
}

async function keepDir(dir: string, entry: TreeEntry): Promise<void> {
  await fs.chmod(dir, entry.mode);
  await fs.utimes(dir, entry.atime, entry.mtime);
}

function failed(dataDir: string, target: string, backupDir: string, error: unknown): ChainvisorError {
  const full = isErrno(error, 'ENOSPC') || isErrno(error, 'EDQUOT');
  const own = error instanceof ChainvisorError ? error.hint : undefined;
  return new ChainvisorError(
    'CHAINVISOR_BACKUP_FAILED',
    `backup of ${dataDir} to ${target} failed: ${(error as Error).message}; nothing was switched, the partial copy was removed`,
    {
      hint: `${own ?? (full ? `free space in ${backupDir}` : 'fix the cause above')}, or set UNSAFE_SKIP_BACKUP=true (or DAEMON_DATA_BACKUP_DIR to a bigger disk); then start chainvisor again — the upgrade is applied at start-up`,
      cause: error,
    },
  );
}
