/**
 * The backups chainvisor made: `$DAEMON_HOME/cosmovisor/.chainvisor/backups.json`, one entry per
 * finished backup (the upgrade it was made for, the folder, mode, size, duration). It lets a restart
 * after the halt reuse the backup already made for the same upgrade instead of making another one, and
 * lets CHAINVISOR_BACKUP_KEEP remove old backups knowing they are chainvisor's own — a folder the
 * operator made, even one named `data-backup-*`, is never in this list and never removed.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import { readBounded } from '../../shared/fsread/index.js';
import { type Layout, makeFolders, writeFileAtomic } from '../layout/index.js';
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

function recordFile(layout: Layout): string {
  return path.join(layout.stateDir, 'backups.json');
}

export async function readMadeBackups(layout: Layout): Promise<MadeBackup[]> {
  // Read by the one bounded reader: what is not a regular file (a FIFO, a device) counts as damaged.
  const read = await readBounded(recordFile(layout), 16 * 1024 * 1024);
  if (read.status !== 'ok') return [];
  const text = read.text;
  try {
    const parsed = JSON.parse(text) as unknown;
    const list = Array.isArray(parsed) ? parsed : [];
    return list.filter((b): b is MadeBackup => typeof b?.path === 'string' && typeof b?.upgrade === 'string' && typeof b?.height === 'number');
  } catch {
    return []; // a damaged record costs one more backup and keeps old folders: the safe side
  }
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
