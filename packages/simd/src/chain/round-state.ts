/**
 * The consensus round state the node shows over RPC (`/consensus_state`, `/dump_consensus_state`):
 * the height being decided, its rounds and the votes each round gathered, in validator-set order.
 * The node's block loop (node/consensus.ts) fills it; the RPC renders it in CometBFT's shapes.
 */
import { hexUpper, sha256 } from '../util/bytes.js';
import type { ValidatorSet } from './validator-set.js';

/** CometBFT's RoundStepType values used here. */
export const roundStep = { newHeight: 1, prevote: 4, commit: 8 } as const;

export interface SimVote {
  /** The voted block's hash; empty for a nil vote. */
  blockHash: string;
  timeNanos: bigint;
}

/** One round's votes by validator index (a missing index has not voted). */
export interface RoundVotes {
  round: number;
  prevotes: ReadonlyMap<number, SimVote>;
  precommits: ReadonlyMap<number, SimVote>;
}

export interface RoundState {
  height: number;
  round: number;
  step: number;
  startNanos: bigint;
  /** The hash the round's proposal stands for (empty between heights). */
  proposalHash: string;
  /** Every round of the height so far, the current one last. */
  rounds: readonly RoundVotes[];
  set: ValidatorSet;
}

/**
 * The stand-in hash of a round's proposal: what the validators' votes name while the height is being
 * decided (the block committed is built once the votes are in, and has its own hash).
 */
export function proposalHash(height: number, round: number): string {
  return hexUpper(sha256('simd/proposal', String(height), String(round)));
}

/** The power that voted in `votes`. */
export function votedPower(set: ValidatorSet, votes: ReadonlyMap<number, SimVote>): bigint {
  let power = 0n;
  for (const index of votes.keys()) power += set.validators[index]?.power ?? 0n;
  return power;
}
