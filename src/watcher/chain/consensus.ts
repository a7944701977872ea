/**
 * What an operator reads with `pvtop` and an explorer after an upgrade, over the node's CometBFT RPC
 * (issue #26; shapes of v0.37/v0.38):
 *   /status                 `validator_info` (this node's validator and its power) and the latest height;
 *   /consensus_state        the height, round and the prevote and precommit bit arrays of the round;
 *   /dump_consensus_state   the validators in the order of those bit arrays (read once: it is large;
 *                           /validators, in the same order, when it cannot be read);
 *   /commit?height=H        the block's time and who signed it.
 * Typed readers only: the follow that uses them lives in src/supervisor/follow.ts. Read-only.
 */
import { ChainUnavailableError } from './errors.js';
import { createRpcTransport, type RpcClientOptions } from './rpc-client.js';

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
  /** power / total exactly (the string's 2 decimals are rounded). */
  ratio: number;
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

const bitArrayPattern = /^BA\{(\d+):([x_]*)\} (\d+)\/(\d+) = [\d.]+$/;

/** A CometBFT bit-array string; undefined when it is not one (an empty round shows `nil-BitArray`). */
export function parseVoteShare(text: unknown): VoteShare | undefined {
  if (typeof text !== 'string') return undefined;
  const match = bitArrayPattern.exec(text.trim());
  if (match === null) return undefined;
  const bits = match[2] as string;
  const power = Number(match[3]);
  const total = Number(match[4]);
  if (bits.length !== Number(match[1])) return undefined;
  return { voted: [...bits].map((c) => c === 'x'), power, total, ratio: total > 0 ? power / total : 0 };
}

export function createConsensusReader(options: RpcClientOptions): ConsensusReader {
  const rpc = createRpcTransport(options);
  const malformed = (what: string, why: string) => new ChainUnavailableError(rpc.address, what, new Error(why), rpc.via);
  return {
    async validator() {
      const what = "the node's validator";
      const result = await rpc.get('/status', what);
      const info = result.validator_info as { address?: unknown; voting_power?: unknown } | undefined;
      const height = (result.sync_info as { latest_block_height?: unknown } | undefined)?.latest_block_height;
      if (typeof info?.address !== 'string' || !isDecimal(info.voting_power) || !isDecimal(height))
        throw malformed(what, 'the answer has no validator_info or sync_info.latest_block_height');
      return { address: info.address.toUpperCase(), votingPower: Number(info.voting_power), latestHeight: Number(height) };
    },
    async roundState() {
      const what = 'the consensus round state';
      const result = await rpc.get('/consensus_state', what);
      const state = result.round_state as { 'height/round/step'?: unknown; height_vote_set?: unknown } | undefined;
      const hrs = typeof state?.['height/round/step'] === 'string' ? state['height/round/step'].split('/').map(Number) : [];
      const [height, round, step] = hrs;
      if (hrs.length !== 3 || !hrs.every(Number.isInteger)) throw malformed(what, 'the answer has no round_state "height/round/step"');
      const sets = Array.isArray(state?.height_vote_set)
        ? (state.height_vote_set as { round?: unknown; prevotes_bit_array?: unknown; precommits_bit_array?: unknown }[])
        : [];
      // CometBFT lists rounds 0 … round + 1: the share that matters is the current round's.
      const current = sets.find((s) => s.round === round) ?? sets.at(-1);
      return {
        height: height as number,
        round: round as number,
        step: step as number,
        prevotes: parseVoteShare(current?.prevotes_bit_array),
        precommits: parseVoteShare(current?.precommits_bit_array),
      };
    },
    async validatorOrder() {
      const what = 'the validator set of the consensus state';
      try {
        const result = await rpc.get('/dump_consensus_state', what);
        const list = (result.round_state as { validators?: { validators?: unknown } } | undefined)?.validators?.validators;
        if (!Array.isArray(list)) throw malformed(what, 'the answer has no round_state.validators.validators');
        return list.map((v: { address?: unknown }) => (typeof v.address === 'string' ? v.address.toUpperCase() : ''));
      } catch (error) {
        if (!(error instanceof ChainUnavailableError)) throw error;
        // A node whose dump is too large (many peers) or refused: /validators lists the same set in the
        // same order (power, then address), 100 a page.
        const order: string[] = [];
        for (let page = 1; page <= 10; page++) {
          const result = await rpc.get(`/validators?page=${page}&per_page=100`, 'the validator set');
          const list = Array.isArray(result.validators) ? (result.validators as { address?: unknown }[]) : [];
          order.push(...list.map((v) => (typeof v.address === 'string' ? v.address.toUpperCase() : '')));
          if (list.length < 100 || order.length >= Number(result.total)) break;
        }
        return order;
      }
    },
    async commit(height) {
      const what = `the commit of block ${height}`;
      const result = await rpc.get(`/commit?height=${height}`, what);
      const header = (result.signed_header as { header?: { time?: unknown; height?: unknown }; commit?: { signatures?: unknown } } | undefined) ?? {};
      const time = typeof header.header?.time === 'string' ? Date.parse(header.header.time) : Number.NaN;
      const signatures = Array.isArray(header.commit?.signatures)
        ? (header.commit.signatures as { block_id_flag?: unknown; validator_address?: unknown }[])
        : undefined;
      if (signatures === undefined || Number.isNaN(time)) throw malformed(what, 'the answer has no signed_header.header.time or commit.signatures');
      const signers = new Set<string>();
      for (const s of signatures)
        if ((s.block_id_flag === 2 || s.block_id_flag === 3) && typeof s.validator_address === 'string') signers.add(s.validator_address.toUpperCase());
      return { height, time, signers };
    },
    close: () => rpc.close(),
  };
}

function isDecimal(value: unknown): value is string {
  return typeof value === 'string' && /^\d+$/.test(value);
}
