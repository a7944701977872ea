/**
 * Step 5: a copy of `$DAEMON_HOME/data` before the new binary migrates it. The copy is made under a
 * `.partial` name and renamed when complete, so a folder named `data-backup-*` is always whole.
 * Copies use copy-on-write clones where the filesystem offers them (btrfs, XFS), which makes them fast.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ChainvisorError, ExitCode, isErrno } from '../errors/index.js';
import type { Logger } from '../log/index.js';

export interface BackupOptions {
  dataDir: string;
  backupDir: string;
  logger: Logger;
  now?: Date;
}

/** cosmovisor's name: `data-backup-<year>-<month>-<day>` (Go layout 2006-1-2). */
export function backupName(now: Date): string {
  return `data-backup-${now.getFullYear()}-${now.getMonth() + 1}-${now.getDate()}`;
}

export async function backupData(options: BackupOptions): Promise<string | undefined> {
  const { dataDir, backupDir, logger } = options;
  const now = options.now ?? new Date();
  try {
    await fs.access(dataDir);
  } catch (error) {
    if (!isErrno(error, 'ENOENT')) throw error;
    logger.warn({ dataDir }, 'no data folder to back up');
    return undefined;
  }
  let target = path.join(backupDir, backupName(now));
  if (await exists(target)) target = `${target}-${now.toISOString().slice(11, 19).replaceAll(':', '')}`;
  const partial = path.join(backupDir, `.${path.basename(target)}.partial-${randomBytes(4).toString('hex')}`);
  const started = Date.now();
  logger.info({ from: dataDir, to: target }, 'backing up data before the upgrade (set UNSAFE_SKIP_BACKUP=true to skip)');
  try {
    await fs.cp(dataDir, partial, {
      recursive: true,
      mode: constants.COPYFILE_FICLONE,
      preserveTimestamps: true,
      verbatimSymlinks: true,
      // The node may have left the plan being applied; it belongs to the data, copy it too.
    });
    await fs.rename(partial, target);
  } catch (error) {
    await fs.rm(partial, { recursive: true, force: true });
    const full = isErrno(error, 'ENOSPC') || isErrno(error, 'EDQUOT');
    throw new ChainvisorError(
      'CHAINVISOR_BACKUP_FAILED',
      `backup of ${dataDir} to ${target} failed: ${(error as Error).message}; nothing was switched, the partial copy was removed`,
      {
        hint: `${full ? `free space in ${backupDir}` : 'fix the cause above'}, or set UNSAFE_SKIP_BACKUP=true (or DAEMON_DATA_BACKUP_DIR to a bigger disk); then start chainvisor again — the upgrade is applied at start-up`,
        cause: error,
        exitCode: ExitCode.backupFailed,
      },
    );
  }
  logger.info({ to: target, ms: Date.now() - started }, 'backup complete');
  return target;
}

async function exists(p: string): Promise<boolean> {
  try {
    await fs.lstat(p);
    return true;
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return false;
    throw error;
  }
}
