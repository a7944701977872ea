/**
 * The validator's signing state (issue #28): CometBFT's `data/priv_validator_state.json` — the last
 * (height, round, step) the validator signed — read and compared as CometBFT compares it.
 * chainvisor's memory of the highest one signed is ./sign-record.ts.
 * Why, and the rest of its rules: docs/design/double-sign.md#guardsignsign-statets.
 */
import path from 'node:path';

import * as v from 'valibot';

import { nodeConfigOf, readNodeToml } from '../chain/index.js';
import { ChainvisorError } from '../shared/errors/index.js';
import { readBounded } from '../shared/fsread/index.js';
import { parseJson } from '../shared/json.js';

/** A (height, round, step): step 1 propose, 2 prevote, 3 precommit; a new home is 0/0/0. */
export interface SignPoint {
  height: bigint;
  round: number;
  step: number;
}

export const zeroPoint: SignPoint = { height: 0n, round: 0, step: 0 };

const int64Max = 2n ** 63n - 1n;

/** A height as CometBFT writes it: an int64 in decimal, in a string. */
export const heightText = v.pipe(
  v.string('not a decimal string'),
  v.regex(/^\d{1,30}$/, 'not a decimal string'),
  v.check((h) => BigInt(h) <= int64Max, 'above the largest height CometBFT has (2^63 - 1)'),
);
/** CometBFT's round is an int32. */
export const roundNumber = v.pipe(
  v.number('not a number'),
  v.integer('not a whole number'),
  v.minValue(0, 'negative'),
  v.maxValue(2 ** 31 - 1, 'above 2^31 - 1'),
);
/** 0 none, 1 propose, 2 prevote, 3 precommit. */
export const stepNumber = v.pipe(v.number('not a number'), v.integer('not a whole number'), v.minValue(0, 'negative'), v.maxValue(3, 'above 3'));

const stateFileSchema = v.looseObject({
  height: v.union(
    [heightText, v.pipe(v.number(), v.safeInteger('a number too large to be read exactly (CometBFT writes heights as strings)'), v.minValue(0, 'negative'))],
    'not a decimal string',
  ),
  round: v.optional(roundNumber, 0),
  step: v.optional(stepNumber, 0),
});

/** Negative when `a` is behind `b`, 0 when equal, positive when ahead (CometBFT's checkHRS order). */
export function compareSignPoints(a: SignPoint, b: SignPoint): number {
  if (a.height !== b.height) return a.height < b.height ? -1 : 1;
  if (a.round !== b.round) return a.round - b.round;
  return a.step - b.step;
}

export function describePoint(p: SignPoint): string {
  return `height ${p.height} round ${p.round} step ${p.step}`;
}

/** Where the node keeps it: config.toml's `priv_validator_state_file` (relative to the home), `data/priv_validator_state.json` by default. */
export interface NodeSigning {
  stateFile: string;
  /** config.toml's `priv_validator_laddr`: a remote signer (TMKMS, Horcrux) keeps the state; empty when none. */
  remoteSigner: string;
  /** The genesis file (config.toml's `genesis_file`). */
  genesisFile: string;
  /** The validator's key (config.toml's `priv_validator_key_file`): only its `address` is ever read (../twin/validator-key.ts). */
  keyFile: string;
}

/** config.toml read as ../../chain/node-files.ts reads it: a missing or broken one leaves the defaults (the node refuses its own broken file). */
export async function nodeSigning(home: string, dataDir = path.join(home, 'data')): Promise<NodeSigning> {
  const { stateFile, remoteSigner, genesisFile, keyFile } = nodeConfigOf(home, await readNodeToml(home, 'config.toml'), dataDir);
  return { stateFile, remoteSigner, genesisFile, keyFile };
}

/** A priv_validator_state.json: `missing` when there is none, else its point (throws CHAINVISOR_SIGN_STATE_UNREADABLE when it cannot be read). */
export async function readSignStateFile(file: string): Promise<SignPoint | 'missing'> {
  const read = await readBounded(file, 1024 * 1024);
  if (read.status === 'missing') return 'missing';
  if (read.status === 'refused') throw unreadableState(file, read.reason);
  return parseSignState(read.text, file);
}

export function parseSignState(text: string, file: string): SignPoint {
  const parsed = parseJson(text, stateFileSchema);
  if (!parsed.ok) throw unreadableState(file, parsed.reason);
  const { height, round, step } = parsed.value;
  return { height: BigInt(height), round, step };
}

function unreadableState(file: string, reason: string): ChainvisorError {
  return new ChainvisorError('CHAINVISOR_SIGN_STATE_UNREADABLE', `cannot read the validator's signing state ${file}: ${reason}`, {
    hint: `put back a valid priv_validator_state.json ({"height": "<n>", "round": <n>, "step": <n>, …}), the newest this validator wrote; CometBFT's heights are int64 decimal strings`,
  });
}
