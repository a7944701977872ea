/**
 * The backups chainvisor made: `$DAEMON_HOME/cosmovisor/.chainvisor/backups.json`, one entry per
 * finished backup (the upgrade it was made for, the folder, mode, size, duration). It lets a restart
 * after the halt reuse the backup already made for the same upgrade instead of making another one, and
 * lets CHAINVISOR_BACKUP_KEEP remove old backups knowing they are chainvisor's own — a folder the
 * operator made, even one named `data-backup-*`, is never in this list and never removed.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import * as v from 'valibot';

import { ChainvisorError } from '../../shared/errors/index.js';
import { readRecord, recordFields } from '../../shared/fsread/index.js';
import { makeFolders, writeFileAtomic } from '../../shared/fswrite/index.js';
import type { Layout } from '../layout/index.js';
import type { BackupMode } from './place.js';

export interface MadeBackup {
  /** The upgrade it was made for. */
  upgrade: string;
  height: number;
  /** The finished backup folder. */
  path: string;
  dataDir: string;
  mode: BackupMode;
  /** Bytes of the data's files, and how many files. */
  bytes: number;
  files: number;
  durationSeconds: number;
  /** ISO time it was finished. */
  time: string;
  /** The binary folder `current` pointed at when it was made (`genesis`, `upgrades/<name>`): where `restore` puts `current` back. Absent in older records. */
  current?: string;
}

const madeBackupSchema = v.strictObject({
  upgrade: v.string(),
  height: recordFields.count,
  // Only such a folder: CHAINVISOR_BACKUP_KEEP removes the listed folders, never data/ on a record's word.
  path: v.pipe(
    recordFields.absolutePath,
    v.check((p) => path.basename(p).startsWith('data-backup-'), 'not a data-backup-* folder'),
  ),
  dataDir: recordFields.absolutePath,
  mode: v.picklist(['copy', 'reflink', 'link']),
  bytes: recordFields.count,
  files: recordFields.count,
  durationSeconds: v.pipe(v.number(), v.finite(), v.minValue(0)),
  time: v.string(),
  current: v.optional(recordFields.binaryDir),
});

function recordFile(layout: Layout): string {
  return path.join(layout.stateDir, 'backups.json');
}

/**
 * The backups recorded; none when there is no record. A damaged record (issue #31) is an error, never
 * an empty list: `restore` would pick from it, and KEEP would remove what it lists. An upgrade goes on
 * without it (a warning: no backup reused, none recorded over it, none pruned).
 */
export async function readMadeBackups(layout: Layout): Promise<MadeBackup[]> {
  const file = recordFile(layout);
  const read = await readRecord(file, v.array(madeBackupSchema));
  if (read.status === 'missing') return [];
  if (read.status === 'ok') return read.value;
  throw new ChainvisorError('CHAINVISOR_BACKUP_RECORD_UNREADABLE', `cannot read the record of the backups chainvisor made, ${file}: ${read.reason}`, {
    hint: `move ${file} aside (the backup folders themselves are untouched) and name the backup to restore with --backup <folder>; the next backup starts a new record`,
  });
}

export async function writeMadeBackups(layout: Layout, list: readonly MadeBackup[]): Promise<void> {
  await makeFolders(layout.stateDir);
  await writeFileAtomic(recordFile(layout), `${JSON.stringify(list, null, 2)}\n`, 0o644);
}

/** The finished backup made for this upgrade, when its folder is still there. */
export async function backupForUpgrade(layout: Layout, upgrade: { name: string; height: number }, dataDir: string): Promise<MadeBackup | undefined> {
  const made = (await readMadeBackups(layout)).filter((b) => b.upgrade === upgrade.name && b.height === upgrade.height && b.dataDir === dataDir);
  for (const backup of made.reverse()) {
    const stat = await fs.stat(backup.path).catch(() => undefined);
    if (stat?.isDirectory()) return backup;
  }
  return undefined;
}
