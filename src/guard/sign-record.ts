/**
 * chainvisor's memory of the highest (height, round, step) this home's validator has signed,
 * `cosmovisor/.chainvisor/sign-state.json`, one entry per chain id (a new network or a genesis
 * restart under a new chain id starts afresh). CometBFT refuses a vote behind the file it finds, but
 * a file put back from a backup or a snapshot has forgotten what was signed since: the record has
 * not.
 * Why, and the rest of its rules: docs/design/double-sign.md#guardsignsign-recordts.
 */
import path from 'node:path';

import * as v from 'valibot';

import { ChainvisorError } from '../shared/errors/index.js';
import { readRecord } from '../shared/fsread/index.js';
import { makeFolders, writeFileAtomic } from '../shared/fswrite/index.js';
import { checkShape } from '../shared/json.js';
import type { HomePaths } from './home-paths.js';
import { compareSignPoints, heightText, roundNumber, type SignPoint, stepNumber } from './sign-state.js';

/** What chainvisor remembers for one chain id. */
export interface SignRecord {
  height: string;
  round: number;
  step: number;
  /** When this point was first seen, and in which file. */
  time: string;
  file: string;
}

/** The records, by chain id. */
export type SignRecords = Map<string, SignRecord>;

const entrySchema = v.strictObject({ height: heightText, round: roundNumber, step: stepNumber, time: v.string(), file: v.string() });
const fileSchema = v.strictObject({
  // Checked key by key below: valibot's record() drops keys such as __proto__ and constructor.
  chains: v.custom<Record<string, unknown>>((c) => typeof c === 'object' && c !== null && !Array.isArray(c), 'not an object of chain ids'),
});

export function signRecordPath(layout: HomePaths): string {
  return path.join(layout.stateDir, 'sign-state.json');
}

export async function readSignRecords(layout: HomePaths): Promise<SignRecords> {
  const file = signRecordPath(layout);
  const read = await readRecord(file, fileSchema);
  if (read.status === 'missing') return new Map();
  if (read.status === 'damaged') throw unreadableRecord(file, read.reason);
  const chains: SignRecords = new Map();
  for (const [id, value] of Object.entries(read.value.chains)) {
    const entry = checkShape(value, entrySchema);
    if (!entry.ok) throw unreadableRecord(file, `the entry of chain ${JSON.stringify(id)} is not the shape chainvisor writes (${entry.reason})`);
    chains.set(id, entry.value);
  }
  return chains;
}

function unreadableRecord(file: string, reason: string): ChainvisorError {
  return new ChainvisorError(
    'CHAINVISOR_SIGN_STATE_UNREADABLE',
    `cannot read chainvisor's record of what this validator has signed, ${file}: ${reason}; whether the signing state went back cannot be told`,
    {
      hint: `put back the record as chainvisor wrote it ({"chains": {"<chain id>": {"height": "<n>", "round": <n>, "step": <n>, "time": "…", "file": "…"}}}); if it cannot be repaired, move it aside, make sure data/priv_validator_state.json is the newest this validator wrote (never one from a backup or a snapshot), and start again: chainvisor records afresh from that file`,
    },
  );
}

export function pointOf(record: SignRecord): SignPoint {
  return { height: BigInt(record.height), round: record.round, step: record.step };
}

/** Raises the record of `chainId` to `point` when it is ahead; returns whether it changed. `chains`: the records, when just read. */
export async function raiseSignRecord(layout: HomePaths, chainId: string, point: SignPoint, file: string, chains?: SignRecords): Promise<boolean> {
  chains ??= await readSignRecords(layout);
  const known = chains.get(chainId);
  if (known !== undefined && compareSignPoints(point, pointOf(known)) <= 0) return false;
  chains.set(chainId, { height: point.height.toString(), round: point.round, step: point.step, time: new Date().toISOString(), file });
  await makeFolders(layout.stateDir);
  // Object.fromEntries defines own properties, so a chain id `__proto__` is written as a key like any other.
  await writeFileAtomic(signRecordPath(layout), `${JSON.stringify({ chains: Object.fromEntries(chains) }, null, 2)}\n`, 0o644);
  return true;
}
