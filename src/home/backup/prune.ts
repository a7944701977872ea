/**
 * CHAINVISOR_BACKUP_KEEP: after a successful upgrade, only the newest N backups chainvisor made are
 * kept; older ones are removed. Only folders in chainvisor's own record (./record.ts) are candidates:
 * a backup the operator made or copied, even named `data-backup-*`, is never touched. 0 keeps all.
 * Never fails the upgrade: a folder that cannot be removed is a warning.
 */
import fs from 'node:fs/promises';

import type { Logger } from '../../shared/log.js';
import type { Layout } from '../layout/index.js';
import { readMadeBackups, writeMadeBackups } from './record.js';

export async function pruneBackups(options: { config: { backupKeep: number }; layout: Layout; logger: Logger }): Promise<string[]> {
  const { layout, logger } = options;
  const keep = options.config.backupKeep;
  if (keep <= 0) return [];
  const removed: string[] = [];
  try {
    const made = await readMadeBackups(layout);
    const newestFirst = [...made].sort((a, b) => b.time.localeCompare(a.time));
    const old = newestFirst.slice(keep);
    if (old.length === 0) return [];
    const gone = new Set<string>();
    for (const backup of old) {
      try {
        await fs.rm(backup.path, { recursive: true, force: true });
        gone.add(backup.path);
        removed.push(backup.path);
        logger.info({ path: backup.path, upgrade: backup.upgrade }, `removed an old backup (CHAINVISOR_BACKUP_KEEP=${keep}): ${backup.path}`);
      } catch (error) {
        logger.warn({ path: backup.path, err: error }, `cannot remove the old backup ${backup.path}: ${(error as Error).message}`);
      }
    }
    await writeMadeBackups(
      layout,
      made.filter((b) => !gone.has(b.path)),
    );
  } catch (error) {
    logger.warn({ err: error }, `could not prune old backups: ${(error as Error).message}`);
  }
  return removed;
}
