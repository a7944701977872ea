/**
 * What an operator reads with `pvtop` and an explorer after an upgrade, over the node's CometBFT RPC
 * (issue #26): /status, /consensus_state, /dump_consensus_state (or /validators) and /commit. Typed
 * readers only: the follow that uses them lives in src/supervisor/upgrade/network-follow.ts. Read-only;
 * each answer is checked against its schema (answers.ts) and bounded.
 * Why, and the rest of its rules: docs/design/chain.md#chainconsensusts.
 */
import { commitAnswer, consensusStateAnswer, dumpConsensusStateAnswer, maxValidators, statusAnswer, validatorsAnswer } from './answers.js';
import { ChainUnavailableError } from './errors.js';
import { createNodeRpc, type RpcClientOptions, statusMaxBytes } from './rpc-client.js';

export interface NodeValidator {
  /** Upper-case hex, as in commit signatures. */
  address: string;
  /** 0: not in the validator set (a sentry, an RPC node). */
  votingPower: number;
  latestHeight: number;
}

/** One vote set: `BA{<n>:<x or _ per validator>} <voted power>/<total power> = <share>`. */
export interface VoteShare {
  /** `true` at validator i when its vote arrived, in validator-set order. */
  voted: boolean[];
  power: number;
  total: number;
  /**
   * power / total exactly (the string's 2 decimals are rounded), at most 1: a node that claims more
   * voted power than there is lies, and `overstated` says so.
   */
  ratio: number;
  /** power > total: the ratio was clamped to 1. */
  overstated: boolean;
}

export interface RoundState {
  height: number;
  round: number;
  step: number;
  prevotes: VoteShare | undefined;
  precommits: VoteShare | undefined;
}

export interface CommitSigners {
  height: number;
  /** The block's header time, ms since the epoch. */
  time: number;
  /** Validators whose signature is in the commit (block_id_flag 2 or 3), upper-case hex. */
  signers: Set<string>;
}

export interface ConsensusReader {
  validator(): Promise<NodeValidator>;
  roundState(): Promise<RoundState>;
  /** Validator addresses in bit-array order. */
  validatorOrder(): Promise<string[]>;
  /** The commit of `height`, a block already committed (latestHeight ≥ height). */
  commit(height: number): Promise<CommitSigners>;
  close(): void;
}

/** At most 10 000 entries (CometBFT's MaxVotesCount); powers longer than an int64's, so that a lie is seen as one. */
const bitArrayPattern = /^BA\{(\d{1,5}):([x_]*)\} (\d{1,30})\/(\d{1,30}) = [\d.e+]{1,40}$/;

/** A CometBFT bit-array string; undefined when it is not one (an empty round shows `nil-BitArray`). */
export function parseVoteShare(text: unknown): VoteShare | undefined {
  // Checked before the pattern runs: a bit array of millions of entries is not read at all.
  if (typeof text !== 'string' || text.length > maxValidators + 100) return undefined;
  const match = bitArrayPattern.exec(text.trim());
  if (match === null) return undefined;
  const bits = match[2] as string;
  const power = Number(match[3]);
  const total = Number(match[4]);
  if (bits.length !== Number(match[1]) || bits.length > maxValidators) return undefined;
  const voted = new Array<boolean>(bits.length);
  for (let i = 0; i < bits.length; i++) voted[i] = bits.charCodeAt(i) === 0x78; // 'x'
  const overstated = power > total;
  return { voted, power, total, ratio: total > 0 ? Math.min(1, power / total) : 0, overstated };
}

export function createConsensusReader(options: RpcClientOptions): ConsensusReader {
  const rpc = createNodeRpc(options);
  return {
    async validator() {
      const result = await rpc.get('status', "the node's validator", statusAnswer, { maxBytes: statusMaxBytes });
      const info = result.validator_info;
      return { address: info.address, votingPower: info.voting_power, latestHeight: result.sync_info.latest_block_height };
    },
    async roundState() {
      const result = await rpc.get('consensus_state', 'the consensus round state', consensusStateAnswer);
      const state = result.round_state;
      const [height, round, step] = state['height/round/step'];
      const sets = state.height_vote_set;
      // CometBFT lists rounds 0 … round + 1: the share that matters is the current round's.
      const current = sets.find((s) => s.round === round) ?? sets.at(-1);
      return { height, round, step, prevotes: parseVoteShare(current?.prevotes_bit_array), precommits: parseVoteShare(current?.precommits_bit_array) };
    },
    async validatorOrder() {
      const what = 'the validator set of the consensus state';
      try {
        const result = await rpc.get('dump_consensus_state', what, dumpConsensusStateAnswer);
        return result.round_state.validators.validators.map((v) => v.address);
      } catch (error) {
        if (!(error instanceof ChainUnavailableError)) throw error;
        // A node whose dump is too large (many peers) or refused: /validators lists the same set in the
        // same order (power, then address), 100 a page, and CometBFT's 10 000 at most.
        const order: string[] = [];
        for (let page = 1; page <= maxValidators / 100; page++) {
          const params = { page: String(page), per_page: '100' };
          const result = await rpc.get('validators', 'the validator set', validatorsAnswer, { params, maxBytes: 1024 * 1024 });
          order.push(...result.validators.map((v) => v.address));
          if (result.validators.length < 100 || order.length >= result.total) break;
        }
        return order;
      }
    },
    async commit(height) {
      const result = await rpc.get('commit', `the commit of block ${height}`, commitAnswer, { params: { height: String(height) } });
      const { header, commit } = result.signed_header;
      const signers = new Set<string>();
      for (const s of commit.signatures) if ((s.block_id_flag === 2 || s.block_id_flag === 3) && s.validator_address !== '') signers.add(s.validator_address);
      return { height, time: header.time, signers };
    },
    close: () => rpc.close(),
  };
}
