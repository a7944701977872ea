/**
 * Start-up clean-up of partial backups: a backup killed half-way (chainvisor killed, the machine
 * rebooted) leaves its hidden `.data-backup-*.partial-*` folder, which nothing else would ever remove
 * and which later fills the disk. `run` removes those whose writer is gone, with an info line each;
 * one whose writer is alive (another chainvisor sharing the backup folder) is left alone.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import { isErrno } from '../../shared/errors/index.js';
import type { Logger } from '../../shared/log.js';
import { isProcessAlive } from '../../shared/proc/index.js';
import { partialOwner } from './names.js';

export async function removePartialBackups(options: { config: { dataBackupDir: string }; logger: Logger }): Promise<string[]> {
  const { logger } = options;
  const backupDir = options.config.dataBackupDir;
  if (!path.isAbsolute(backupDir)) return []; // only possible with backups skipped: nothing was ever written there
  let names: string[];
  try {
    names = await fs.readdir(backupDir);
  } catch (error) {
    if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR')) return [];
    logger.warn({ backupDir, err: error }, `cannot look for partial backups in ${backupDir}: ${(error as Error).message}`);
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const owner = partialOwner(name);
    if (owner === undefined || (owner.pid !== undefined && owner.pid !== process.pid && (await isProcessAlive(owner.pid)))) continue;
    const full = path.join(backupDir, name);
    try {
      await fs.rm(full, { recursive: true, force: true });
      removed.push(full);
      logger.info({ path: full }, `removed a partial backup left by an interrupted run: ${full}`);
    } catch (error) {
      logger.warn({ path: full, err: error }, `cannot remove the partial backup ${full}: ${(error as Error).message}; remove it by hand`);
    }
  }
  return removed;
}
