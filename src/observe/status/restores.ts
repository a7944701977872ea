/**
 * The last restore (`chainvisor restore`, issue #28), from `cosmovisor/.chainvisor/restores.json`
 * (written by src/home/backup/restore-record.ts), as the status document shows it. Read here, not through
 * src/home/backup/, so that `status` never loads the backup's machinery.
 */
import path from 'node:path';

import * as v from 'valibot';

import type { Layout } from '../../home/layout/index.js';
import { readBounded } from '../../shared/fsread/index.js';
import { parseJson } from '../../shared/json.js';

export interface RestoreSummary {
  time: string;
  backup: string;
  replaced: string;
  durationSeconds: number;
  signing: { kept: string; replacedHeight: string | null; backupHeight: string | null };
  current: { from: string; to: string };
}

/**
 * As lenient as the summary needs: a list whose last entry names its backup and time. What else the
 * entry holds is shown when it has the type `restore` writes, and left at its default otherwise.
 */
const heightOrNull = v.fallback(v.nullable(v.string()), null);
const lastSchema = v.object({
  time: v.string(),
  backup: v.string(),
  replaced: v.fallback(v.string(), ''),
  durationSeconds: v.fallback(v.number(), 0),
  signing: v.fallback(v.object({ kept: v.fallback(v.string(), 'none'), replacedHeight: heightOrNull, backupHeight: heightOrNull }), {
    kept: 'none',
    replacedHeight: null,
    backupHeight: null,
  }),
  current: v.fallback(v.object({ from: v.fallback(v.string(), ''), to: v.fallback(v.string(), '') }), { from: '', to: '' }),
});

export async function readLastRestore(layout: Layout, problems: string[]): Promise<RestoreSummary | null> {
  const file = path.join(layout.stateDir, 'restores.json');
  const read = await readBounded(file, 1024 * 1024);
  if (read.status !== 'ok') {
    if (read.status === 'refused') problems.push(`${file}: ${read.reason}`);
    return null;
  }
  const list = parseJson(read.text, v.array(v.unknown()));
  if (!list.ok) {
    problems.push(`${file}: ${list.reason}`);
    return null;
  }
  if (list.value.length === 0) return null;
  const last = v.safeParse(lastSchema, list.value.at(-1));
  return last.success ? last.output : null;
}
