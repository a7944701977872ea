/**
 * The restores made, newest last: `cosmovisor/.chainvisor/restores.json` (`chainvisor status` shows the
 * last one). One entry per restore, written once its data is in place.
 */
import path from 'node:path';

import { readBounded } from '../../shared/fsread/index.js';
import { type Layout, makeFolders, writeFileAtomic } from '../layout/index.js';

export interface RestoreRecord {
  /** ISO time the restore finished. */
  time: string;
  backup: string;
  dataDir: string;
  /** Where the data it replaced went. */
  replaced: string;
  /** How the files were put back: clones or copies. */
  mode: 'reflink' | 'copy';
  bytes: number;
  files: number;
  durationSeconds: number;
  /** Which signing state was kept, and both heights (null: no such file). */
  signing: { kept: 'replaced' | 'backup' | 'none'; replacedHeight: string | null; backupHeight: string | null };
  current: { from: string; to: string };
}

export function restoresPath(layout: Layout): string {
  return path.join(layout.stateDir, 'restores.json');
}

export async function readRestoreRecords(layout: Layout): Promise<RestoreRecord[]> {
  // Read by the one bounded reader: what is not a regular file (a FIFO, a device) is no record.
  const read = await readBounded(restoresPath(layout), 16 * 1024 * 1024);
  if (read.status !== 'ok') return [];
  try {
    const parsed = JSON.parse(read.text) as unknown;
    return Array.isArray(parsed) ? (parsed as RestoreRecord[]) : [];
  } catch (error) {
    if (error instanceof SyntaxError) return [];
    throw error;
  }
}

/** Adds `record` (once: a restore finished again after a crash is not listed twice). */
export async function writeRestoreRecord(layout: Layout, record: RestoreRecord): Promise<void> {
  const list = (await readRestoreRecords(layout)).filter((r) => r.replaced !== record.replaced);
  list.push({ ...record, time: new Date().toISOString() });
  await makeFolders(layout.stateDir);
  await writeFileAtomic(restoresPath(layout), `${JSON.stringify(list.slice(-20), null, 2)}\n`, 0o644);
}
