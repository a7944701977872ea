/**
 * The rehearsals kept in `cosmovisor/.chainvisor/rehearsals.json` (written by `rehearse`, src/rehearsal/),
 * the newest of each upgrade, as the status document shows them. Read here, not through src/rehearsal/,
 * so that `status` never loads the rehearsal's machinery.
 */
import path from 'node:path';

import * as v from 'valibot';

import type { Layout } from '../../home/layout/index.js';
import { readBounded } from '../../shared/fsread/index.js';
import { parseJson } from '../../shared/json.js';

export interface RehearsalSummary {
  upgrade: string;
  result: 'passed' | 'failed';
  reason: string | null;
  height: number | null;
  migration_seconds: number | null;
  blocks_after_upgrade: number;
  peak_rss_bytes: number | null;
  scratch_bytes: number;
  phases: { copy: number | null; halt: number | null; migration: number | null; blocks: number | null };
  log_tail: string[];
  started_at: string;
  finished_at: string;
  binary_sha256: string;
  kept?: string;
}

/** The list `rehearse` writes (src/rehearsal/record.ts); an entry that names no upgrade is left out. */
const listSchema = v.array(v.unknown());
const entrySchema = v.looseObject({ upgrade: v.string() });

export function rehearsalsPath(layout: Layout): string {
  return path.join(layout.stateDir, 'rehearsals.json');
}

/** The records, oldest first; a missing file is none, an unreadable one a problem. */
export async function readRehearsals(layout: Layout, problems?: string[]): Promise<RehearsalSummary[]> {
  const file = rehearsalsPath(layout);
  const read = await readBounded(file, 4 * 1024 * 1024);
  if (read.status === 'missing') return [];
  if (read.status === 'refused') {
    problems?.push(`${file}: ${read.reason}`);
    return [];
  }
  const parsed = parseJson(read.text, listSchema, { maxBytes: 4 * 1024 * 1024 });
  if (!parsed.ok) {
    problems?.push(`${file}: not a JSON list of rehearsals (${parsed.reason})`);
    return [];
  }
  return parsed.value.filter((r): r is RehearsalSummary => v.is(entrySchema, r));
}
