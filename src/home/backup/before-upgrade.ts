/**
 * The backup step of an upgrade: one finished backup per upgrade. A restart after the halt (a failed
 * pre-upgrade, a kill, a reboot) finds the backup already made for the same upgrade in the record and
 * reuses it: the node has not run since, so the data is the same, and a second full backup would only
 * cost time and disk. Otherwise the backup is made with progress and events on the bus
 * (`backup-started` → `backup-progress`… → `backup-done`, read by the status page and the metrics)
 * and recorded.
 */
import fs from 'node:fs/promises';

import type { Config } from '../../config/index.js';
import type { EventBus } from '../../shared/events/index.js';
import type { Logger } from '../../shared/log.js';
import { progressOnBus } from '../../shared/progress/index.js';
import { type Layout, readCurrentDir } from '../layout/index.js';
import { backupData, type BackupResult } from './backup.js';
import { backupForUpgrade, type MadeBackup, readMadeBackups, writeMadeBackups } from './record.js';
import type { StatfsFn } from './space.js';

export interface BackupBeforeUpgradeOptions {
  upgrade: { name: string; height: number };
  config: Pick<Config, 'dataBackupDir' | 'backupMode'>;
  layout: Layout;
  logger: Logger;
  events?: EventBus;
  signal?: AbortSignal;
  /** Test hook: the free-space query. */
  statfs?: StatfsFn;
}

/** The backup for this upgrade: made now, or the one already made; undefined when there is no data. */
export async function backupBeforeUpgrade(options: BackupBeforeUpgradeOptions): Promise<{ path: string; reused: boolean } | undefined> {
  const { upgrade, config, layout, logger, events } = options;
  const existing = await backupForUpgrade(layout, upgrade, layout.dataDir).catch((error: unknown) => {
    // An unreadable record costs one more backup, never the upgrade.
    logger.warn({ err: error }, `cannot read the record of earlier backups in ${layout.stateDir}: ${(error as Error).message}; making a new backup`);
    return undefined;
  });
  if (existing) {
    logger.info(
      { upgrade: upgrade.name, height: upgrade.height, path: existing.path, mode: existing.mode, madeAt: existing.time },
      `reusing the backup made for upgrade "${upgrade.name}" at ${existing.time}: ${existing.path} (the node has not run since)`,
    );
    return { path: existing.path, reused: true };
  }
  events?.emit('backup-started', { upgrade, text: `backing up ${layout.dataDir}`, data: { path: layout.dataDir, mode: config.backupMode } });
  const progress = events ? progressOnBus({ events, event: 'backup-progress', what: layout.dataDir, upgrade }) : undefined;
  let began = false;
  let result: BackupResult | undefined;
  try {
    result = await backupData({
      dataDir: layout.dataDir,
      backupDir: config.dataBackupDir,
      logger,
      mode: config.backupMode,
      ...(progress
        ? {
            onProgress: (bytes: number, total: number) => {
              began = true;
              progress.update(bytes, total);
            },
          }
        : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.statfs ? { statfs: options.statfs } : {}),
    });
  } catch (error) {
    // A backup refused before its first byte (no space: nothing written) did not "finish" nor "stop":
    // its error says what happened, once.
    progress?.finish(options.signal?.aborted ? 'cancelled' : began ? 'failed' : 'not-started');
    throw error;
  }
  progress?.finish(result === undefined ? 'not-started' : 'complete');
  if (result === undefined) return undefined;
  const { path, mode, ms, bytes, files } = result;
  events?.emit('backup-done', { upgrade, text: `backup of ${layout.dataDir} complete: ${path}`, data: { path, mode, ms, bytes, files } });
  try {
    // Made at the halt, before the switch: `current` is still the binary the backup's data belongs to.
    const current = await readCurrentDir(layout).catch(() => undefined);
    // Entries whose folder the operator has removed since are dropped: the record lists what exists.
    const made = await onlyExisting(await readMadeBackups(layout));
    made.push({
      upgrade: upgrade.name,
      height: upgrade.height,
      path,
      dataDir: layout.dataDir,
      mode,
      bytes,
      files,
      durationSeconds: ms / 1000,
      time: new Date().toISOString(),
      ...(current === undefined ? {} : { current }),
    });
    await writeMadeBackups(layout, made);
  } catch (error) {
    // The backup itself is whole; without its record a restart makes another and KEEP will not prune it.
    logger.warn({ path, err: error }, `the backup is complete but could not be recorded in ${layout.stateDir}: ${(error as Error).message}`);
  }
  return { path, reused: false };
}

async function onlyExisting(list: MadeBackup[]): Promise<MadeBackup[]> {
  const present = await Promise.all(
    list.map((b) =>
      fs.stat(b.path).then(
        (s) => s.isDirectory(),
        () => false,
      ),
    ),
  );
  return list.filter((_, i) => present[i]);
}
