/**
 * The last restore (`chainvisor restore`, issue #28), from `cosmovisor/.chainvisor/restores.json`
 * (written by src/home/backup/restore-record.ts), as the status document shows it. Read here, not through
 * src/home/backup/, so that `status` never loads the backup's machinery.
 */
import path from 'node:path';

import type { Layout } from '../../home/layout/index.js';
import { readBounded } from '../../shared/fsread/index.js';

export interface RestoreSummary {
  time: string;
  backup: string;
  replaced: string;
  durationSeconds: number;
  signing: { kept: string; replacedHeight: string | null; backupHeight: string | null };
  current: { from: string; to: string };
}

export async function readLastRestore(layout: Layout, problems: string[]): Promise<RestoreSummary | null> {
  const file = path.join(layout.stateDir, 'restores.json');
  const read = await readBounded(file, 1024 * 1024);
  if (read.status !== 'ok') {
    if (read.status === 'refused') problems.push(`${file}: ${read.reason}`);
    return null;
  }
  try {
    const list = JSON.parse(read.text) as unknown;
    const last = Array.isArray(list) ? (list.at(-1) as Partial<RestoreSummary> | undefined) : undefined;
    if (last === undefined || typeof last.backup !== 'string' || typeof last.time !== 'string') return null;
    return {
      time: last.time,
      backup: last.backup,
      replaced: String(last.replaced ?? ''),
      durationSeconds: Number(last.durationSeconds ?? 0),
      signing: { kept: 'none', replacedHeight: null, backupHeight: null, ...last.signing },
      current: { from: '', to: '', ...last.current },
    };
  } catch (error) {
    problems.push(`${file}: ${(error as Error).message}`);
    return null;
  }
}
