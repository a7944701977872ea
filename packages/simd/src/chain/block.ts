/**
 * Block records, kept so that CometBFT-style RPC (`/status`, `/block`, `/blockchain`) works and the
 * `applied` query can print the block at which an upgrade ran (upgrade-module.md §2.4). Hashes are sha256 over the
 * JSON of what they cover: the chain is simulated, the shapes are real.
 */
import type { Event } from '../core/msg.js';
import type { KVReader } from '../store/kv.js';
import { hexUpper, sha256, uint64BE } from '../util/bytes.js';
import { formatNanos } from '../util/time.js';
import { precommitSignature } from './validator-set.js';

export interface BlockId {
  hash: string;
  parts: { total: number; hash: string };
}

export interface Header {
  version: { block: string; app: string };
  chain_id: string;
  height: string;
  time: string;
  last_block_id: BlockId;
  last_commit_hash: string;
  data_hash: string;
  validators_hash: string;
  next_validators_hash: string;
  consensus_hash: string;
  app_hash: string;
  last_results_hash: string;
  evidence_hash: string;
  proposer_address: string;
}

export interface TxResult {
  hash: string;
  code: number;
  codespace: string;
  log: string;
  events: Event[];
  /** The fee's gas limit and the gas the transaction used (absent in blocks stored before they were kept). */
  gas_wanted?: string;
  gas_used?: string;
}

export interface BlockRecord {
  block_id: BlockId;
  block_size: string;
  header: Header;
  num_txs: string;
  /** Base64 transactions. */
  txs: string[];
  results: TxResult[];
  /** The block's own FinalizeBlock events (end-block); absent in blocks stored before they were kept. */
  events?: Event[];
  /** The header time in nanoseconds since the epoch, as a decimal string. */
  time_nanos: string;
  /**
   * The app version the block's FinalizeBlock leaves (its consensus-param update). It differs from
   * the header's at an upgrade height: CometBFT applies it from the next header on. Absent in blocks
   * stored before it was kept, where the header's is the one.
   */
  app_version?: string;
  /**
   * The precommits that committed this block, kept when the node simulates a validator set
   * (`--sim-peers-power`, `--sim-not-signing`); absent otherwise, where the one validator's is derived.
   */
  commit?: StoredCommit;
  /** The parent's stored commit, carried as this block's `last_commit` (absent when the parent has none). */
  last_commit?: StoredCommit;
}

/** The round a block committed in and the precommits of the set, in validator-set order. */
export interface StoredCommit {
  round: number;
  signatures: CommitSig[];
}

/** Who precommitted a block: every validator of the set in order, `voted` false when absent. */
export interface Precommits {
  round: number;
  votes: ReadonlyArray<{ address: string; voted: boolean }>;
}

/** The part of a block the `/blockchain` RPC and the `applied` query return (upgrade-module.md §2.4). */
export interface BlockMeta {
  block_id: BlockId;
  block_size: string;
  header: Header;
  num_txs: string;
}

const emptyBlockId: BlockId = { hash: '', parts: { total: 0, hash: '' } };
const emptyHash = hexUpper(sha256(''));
const validatorSetHash = hexUpper(sha256('simd validator set'));
const consensusParamsHash = hexUpper(sha256('simd consensus params'));

export const blockPrefix = Buffer.from('b/');

export function blockKey(height: number): Buffer {
  return Buffer.concat([blockPrefix, uint64BE(height)]);
}

export async function getBlock(kv: KVReader, height: number): Promise<BlockRecord | undefined> {
  const bytes = await kv.get(blockKey(height));
  return bytes === undefined ? undefined : (JSON.parse(bytes.toString('utf8')) as BlockRecord);
}

export interface MakeBlockInput {
  chainId: string;
  height: number;
  timeNanos: bigint;
  /** The app version in force when the block was proposed (the previous block's param update). */
  headerAppVersion: number;
  /** The app version after the block's own execution (an upgrade in PreBlock raises it). */
  appVersion: number;
  /** The application hash after the previous block (CometBFT puts it in the next header). */
  appHash: Buffer;
  last: BlockRecord | undefined;
  txs: Buffer[];
  results: TxResult[];
  events?: Event[];
  proposerAddress: string;
  /** The votes that commit the block, stored with it when the node simulates a validator set. */
  precommits?: Precommits;
}

export function makeBlock(input: MakeBlockInput): BlockRecord {
  const { last } = input;
  const header: Header = {
    version: { block: '11', app: String(input.headerAppVersion) },
    chain_id: input.chainId,
    height: String(input.height),
    time: formatNanos(input.timeNanos),
    last_block_id: last?.block_id ?? emptyBlockId,
    last_commit_hash: last === undefined ? '' : hexUpper(sha256('commit', last.block_id.hash)),
    data_hash: hexUpper(sha256(...input.txs)),
    validators_hash: validatorSetHash,
    next_validators_hash: validatorSetHash,
    consensus_hash: consensusParamsHash,
    // The first block carries the application hash after InitChain, which is never empty.
    app_hash: hexUpper(input.appHash.length === 0 ? sha256('') : input.appHash),
    last_results_hash: last === undefined ? emptyHash : hexUpper(sha256(JSON.stringify(last.results.map((r) => [r.code, r.log])))),
    evidence_hash: emptyHash,
    proposer_address: input.proposerAddress,
  };
  const headerBytes = JSON.stringify(header);
  const txs = input.txs.map((tx) => tx.toString('base64'));
  const size = headerBytes.length + input.txs.reduce((n, tx) => n + tx.length, 0);
  const blockHash = hexUpper(sha256(headerBytes));
  const time = formatNanos(input.timeNanos);
  const { precommits } = input;
  return {
    block_id: { hash: blockHash, parts: { total: 1, hash: hexUpper(sha256('part', headerBytes, ...input.txs)) } },
    block_size: String(size),
    header,
    num_txs: String(txs.length),
    txs,
    results: input.results,
    events: input.events ?? [],
    time_nanos: input.timeNanos.toString(),
    app_version: String(input.appVersion),
    ...(precommits === undefined
      ? {}
      : {
          commit: {
            round: precommits.round,
            signatures: precommits.votes.map((v) => (v.voted ? signedCommitSig(blockHash, v.address, time) : absentCommitSig)),
          },
        }),
    ...(last?.commit === undefined ? {} : { last_commit: last.commit }),
  };
}

/** The app version a block's FinalizeBlock returned in its consensus-param update. */
export function appVersionAfter(block: BlockRecord): number {
  return Number(block.app_version ?? block.header.version.app);
}

/** End-block events as the SDK reports them in FinalizeBlock: each with a `mode: EndBlock` attribute. */
export function endBlockEvents(events: readonly Event[]): Event[] {
  return events.map((e) => ({ type: e.type, attributes: [...e.attributes, { key: 'mode', value: 'EndBlock' }] }));
}

export function blockMeta(block: BlockRecord): BlockMeta {
  return { block_id: block.block_id, block_size: block.block_size, header: block.header, num_txs: block.num_txs };
}

/** CometBFT's BlockIDFlag: 1 absent, 2 voted for the block, 3 voted nil. */
export const blockIdFlag = { absent: 1, commit: 2, nil: 3 } as const;

export interface CommitSig {
  block_id_flag: number;
  /** Upper-case hex; empty when absent. */
  validator_address: string;
  timestamp: string;
  /** Base64; null when absent. */
  signature: string | null;
}

/** An absent validator's entry, as CometBFT writes it. */
const absentCommitSig: CommitSig = { block_id_flag: blockIdFlag.absent, validator_address: '', timestamp: '0001-01-01T00:00:00Z', signature: null };

function signedCommitSig(blockHash: string, address: string, time: string): CommitSig {
  return { block_id_flag: blockIdFlag.commit, validator_address: address, timestamp: time, signature: precommitSignature(blockHash, address) };
}

export interface CometCommit {
  height: string;
  round: number;
  block_id: BlockId;
  signatures: CommitSig[];
}

/**
 * The commit for a block: the one validator's precommit (BlockIDFlagCommit). `time` is the vote's
 * time; with one validator, CometBFT's BFT time makes it the next block's header time.
 */
export function cometCommit(height: string, blockId: BlockId, validator: string, time: string): CometCommit {
  if (blockId.hash === '') return { height, round: 0, block_id: blockId, signatures: [] };
  const signature = Buffer.concat([sha256('simd/precommit', blockId.hash), sha256('simd/precommit/2', blockId.hash)]);
  return {
    height,
    round: 0,
    block_id: blockId,
    signatures: [{ block_id_flag: 2, validator_address: validator, timestamp: time, signature: signature.toString('base64') }],
  };
}

/** The commit of a block (`/commit`): the stored precommits, or the one validator's. */
export function blockCommit(block: BlockRecord, time: string): CometCommit {
  const { header } = block;
  if (block.commit !== undefined) return { height: header.height, round: block.commit.round, block_id: block.block_id, signatures: block.commit.signatures };
  return cometCommit(header.height, block.block_id, header.proposer_address, time);
}

/** The commit a block carries for its parent (`last_commit`): empty in the first block. */
export function lastCommit(block: BlockRecord): CometCommit {
  const { header } = block;
  const height = String(Math.max(0, Number(header.height) - 1));
  if (block.last_commit !== undefined)
    return { height, round: block.last_commit.round, block_id: header.last_block_id, signatures: block.last_commit.signatures };
  return cometCommit(String(Math.max(0, Number(header.height) - 1)), header.last_block_id, header.proposer_address, header.time);
}

/** A CometBFT `types.Block` as JSON (the `/block` result's `block`, the NewBlock event's). */
export function cometBlockBody(block: BlockRecord): unknown {
  return { header: block.header, data: { txs: block.txs }, evidence: { evidence: [] }, last_commit: lastCommit(block) };
}

/** The `/block` RPC result. */
export function cometBlock(block: BlockRecord): unknown {
  return { block_id: block.block_id, block: cometBlockBody(block) };
}
