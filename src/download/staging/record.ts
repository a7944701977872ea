/**
 * What chainvisor staged, and from which plan: `$DAEMON_HOME/cosmovisor/.chainvisor/staged.json`, a
 * map from the upgrade folder (`upgrades/<dir>`) to the plan it was downloaded for. It tells a
 * binary chainvisor staged (which it may discard or restage when the plan changes) from one the
 * operator installed (never touched), and lets a restarted chainvisor see what is already done. A
 * binary whose plan was cancelled on chain stays, marked not planned (`cancelledAt`): a plan of that
 * name with the same Info takes it back, one with another Info moves it aside. A binary staged for a
 * governance proposal while the vote runs carries its id (`proposal`) until the plan's staging takes it.
 */
import path from 'node:path';

import * as v from 'valibot';

import type { Layout } from '../../home/layout/index.js';
import { readBounded } from '../../shared/fsread/index.js';
import { makeFolders, writeFileAtomic } from '../../shared/fswrite/index.js';
import { jsonObject, parseJson } from '../../shared/json.js';

export interface StagedRecord {
  name: string;
  height: number;
  info: string;
  /** ISO time the binary was installed. */
  stagedAt: string;
  /** Where the binary came from, when CHAINVISOR_UPGRADE_SOURCES names more than the plan (issue #34). */
  source?: string;
  /** ISO time its plan was seen cancelled on chain: kept on disk, not planned (issue #45). */
  cancelledAt?: string;
  /** The proposal it was staged for while the vote ran; cleared when the plan's own staging takes it. */
  proposal?: string;
}

export type StagedRecords = Record<string, StagedRecord>;

const stagedRecordSchema = v.object({
  name: v.string(),
  height: v.number(),
  info: v.string(),
  stagedAt: v.string(),
  cancelledAt: v.optional(v.string()),
  proposal: v.optional(v.string()),
});
function recordFile(layout: Layout): string {
  return path.join(layout.stateDir, 'staged.json');
}

export async function readStagedRecords(layout: Layout): Promise<StagedRecords> {
  // chainvisor writes this file itself, but it is read with the same care: a FIFO must not hang `run`.
  const read = await readBounded(recordFile(layout), 16 * 1024 * 1024);
  if (read.status !== 'ok') return {}; // nothing usable: it only costs a re-check of the staged binaries
  // A damaged record only costs a re-check; the binaries themselves are verified files.
  const parsed = parseJson(read.text, jsonObject, { maxBytes: 16 * 1024 * 1024 });
  if (!parsed.ok) return {};
  // An entry of another shape is dropped: its binary is then one chainvisor did not stage, which it
  // never touches.
  const records = parsed.value;
  for (const dir of Object.keys(records)) if (!v.is(stagedRecordSchema, records[dir])) delete records[dir];
  return records as StagedRecords;
}

export async function updateStagedRecord(layout: Layout, dir: string, record: StagedRecord | undefined): Promise<void> {
  const records = await readStagedRecords(layout);
  if (record === undefined) delete records[dir];
  else records[dir] = record;
  await makeFolders(layout.stateDir);
  await writeFileAtomic(recordFile(layout), `${JSON.stringify(records, null, 2)}\n`, 0o644);
}
