/**
 * The validator's signing state (issue #28): CometBFT's `data/priv_validator_state.json` — the last
 * (height, round, step) the validator signed, height a decimal string — read and compared as CometBFT
 * compares it, and chainvisor's own memory of the highest one this home has signed,
 * `cosmovisor/.chainvisor/sign-state.json`, one entry per chain id (a new network or a genesis restart
 * under a new chain id starts afresh). CometBFT refuses a vote behind the file it finds, but a file put
 * back from a backup or a snapshot has forgotten what was signed since: the record has not.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import { parse } from 'smol-toml';

import { ChainvisorError, isErrno } from '../../shared/errors/index.js';
import { readBounded, readGenesisFacts } from '../../shared/fsread/index.js';
import { type Layout, makeFolders, writeFileAtomic } from '../layout/index.js';

/** A (height, round, step): step 1 propose, 2 prevote, 3 precommit; a new home is 0/0/0. */
export interface SignPoint {
  height: bigint;
  round: number;
  step: number;
}

export const zeroPoint: SignPoint = { height: 0n, round: 0, step: 0 };

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
  /** The validator's key (config.toml's `priv_validator_key_file`): only its `address` is ever read (./validator-key.ts). */
  keyFile: string;
}

export async function nodeSigning(home: string, dataDir = path.join(home, 'data')): Promise<NodeSigning> {
  const read = await readBounded(path.join(home, 'config', 'config.toml'), 4 * 1024 * 1024);
  let doc: Record<string, unknown> = {};
  if (read.status === 'ok') {
    try {
      doc = parse(read.text);
    } catch {
      doc = {}; // the node refuses its own broken config.toml; the defaults stand here
    }
  }
  const text = (key: string): string => (typeof doc[key] === 'string' ? doc[key].trim() : '');
  const stateRel = text('priv_validator_state_file');
  return {
    stateFile:
      stateRel === '' || stateRel === 'data/priv_validator_state.json' ? path.join(dataDir, 'priv_validator_state.json') : path.resolve(home, stateRel),
    remoteSigner: text('priv_validator_laddr'),
    genesisFile: path.resolve(home, text('genesis_file') || 'config/genesis.json'),
    keyFile: path.resolve(home, text('priv_validator_key_file') || 'config/priv_validator_key.json'),
  };
}

/** A priv_validator_state.json: `missing` when there is none, else its point (throws CHAINVISOR_SIGN_STATE_UNREADABLE when it cannot be read). */
export async function readSignStateFile(file: string): Promise<SignPoint | 'missing'> {
  const read = await readBounded(file, 1024 * 1024);
  if (read.status === 'missing') return 'missing';
  if (read.status === 'refused') throw unreadable(file, read.reason);
  return parseSignState(read.text, file);
}

export function parseSignState(text: string, file: string): SignPoint {
  let raw: { height?: unknown; round?: unknown; step?: unknown };
  try {
    raw = JSON.parse(text) as typeof raw;
  } catch (error) {
    throw unreadable(file, `not JSON (${(error as Error).message})`);
  }
  const height = typeof raw?.height === 'string' ? raw.height : typeof raw?.height === 'number' ? String(raw.height) : undefined;
  if (height === undefined || !/^\d+$/.test(height)) throw unreadable(file, `"height" is ${JSON.stringify(raw?.height)}, not a decimal string`);
  const round = raw.round ?? 0;
  const step = raw.step ?? 0;
  if (typeof round !== 'number' || !Number.isInteger(round) || round < 0) throw unreadable(file, `"round" is ${JSON.stringify(round)}`);
  if (typeof step !== 'number' || !Number.isInteger(step) || step < 0 || step > 3) throw unreadable(file, `"step" is ${JSON.stringify(step)}`);
  return { height: BigInt(height), round, step };
}

function unreadable(file: string, reason: string): ChainvisorError {
  return new ChainvisorError('CHAINVISOR_SIGN_STATE_UNREADABLE', `cannot read the validator's signing state ${file}: ${reason}`);
}

/** What chainvisor remembers for one chain id. */
export interface SignRecord {
  height: string;
  round: number;
  step: number;
  /** When this point was first seen, and in which file. */
  time: string;
  file: string;
}

interface SignRecordFile {
  chains: Record<string, SignRecord>;
}

export function signRecordPath(layout: Layout): string {
  return path.join(layout.stateDir, 'sign-state.json');
}

export async function readSignRecords(layout: Layout): Promise<Record<string, SignRecord>> {
  const file = signRecordPath(layout);
  const read = await readBounded(file, 1024 * 1024);
  if (read.status === 'missing') return {};
  if (read.status === 'refused') throw unreadable(file, read.reason);
  try {
    const parsed = JSON.parse(read.text) as Partial<SignRecordFile>;
    const chains = parsed.chains && typeof parsed.chains === 'object' ? parsed.chains : {};
    for (const [id, entry] of Object.entries(chains)) parseSignState(JSON.stringify(entry), `${file} (${id})`);
    return chains;
  } catch (error) {
    // A damaged memory is refused, never read as "nothing signed": that would wave the node through.
    if (error instanceof ChainvisorError) throw error;
    throw unreadable(file, (error as Error).message);
  }
}

export function pointOf(record: SignRecord): SignPoint {
  return { height: BigInt(record.height), round: record.round, step: record.step };
}

/** Raises the record of `chainId` to `point` when it is ahead; returns whether it changed. `chains`: the records, when just read. */
export async function raiseSignRecord(layout: Layout, chainId: string, point: SignPoint, file: string, chains?: Record<string, SignRecord>): Promise<boolean> {
  chains ??= await readSignRecords(layout);
  const known = chains[chainId];
  if (known !== undefined && compareSignPoints(point, pointOf(known)) <= 0) return false;
  chains[chainId] = { height: point.height.toString(), round: point.round, step: point.step, time: new Date().toISOString(), file };
  await makeFolders(layout.stateDir);
  await writeFileAtomic(signRecordPath(layout), `${JSON.stringify({ chains }, null, 2)}\n`, 0o644);
  return true;
}

/**
 * readChainId, read again only when the genesis file changes: a genesis of gigabytes whose chain_id
 * comes after app_state is scanned once per run, never at each restart.
 */
export function cachedChainId(): (genesisFile: string) => Promise<string> {
  let chain: { key: string; id: string } | undefined;
  return async (genesisFile) => {
    const stat = await fs.stat(genesisFile).catch(() => undefined);
    const key = `${genesisFile}:${stat?.size}:${stat?.mtimeMs}`;
    if (chain?.key !== key) chain = { key, id: await readChainId(genesisFile) };
    return chain.id;
  };
}

/**
 * The chain id from the genesis file's top-level `chain_id`. A genesis can be gigabytes with other
 * `chain_id`s inside it (IBC clients): it is scanned as a stream, knowing the nesting depth, and left
 * as soon as the top-level one is found (CometBFT and the SDK write it near the start). `unknown` when
 * there is no genesis file or no chain id in it: the guard then keeps one record for that.
 */
export async function readChainId(genesisFile: string): Promise<string> {
  try {
    return (await readGenesisFacts(genesisFile, { chainIdOnly: true })).chainId ?? 'unknown';
  } catch (error) {
    if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR') || isErrno(error, 'EISDIR')) return 'unknown';
    throw error;
  }
}
