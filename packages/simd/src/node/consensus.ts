/**
 * The simulated network's consensus (issue #26): before each block, the validators that are present
 * prevote and precommit, and the block commits only once more than 2/3 of the set's power did.
 * Until then the height stays and a new round starts every round duration, as CometBFT's rounds
 * time out. This node's validator votes unless `--sim-not-signing`; the peers vote for every block,
 * except at the upgrade height in the process that runs the upgrade: there they are absent when it
 * starts and come back one by one, evenly, over `--sim-peers-back-after` — the wait operators watch
 * with pvtop after a switch. With no peers and a signing validator, every block commits at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import type { Precommits } from '../chain/block.js';
import { proposalHash, type RoundState, roundStep, type RoundVotes, type SimVote, votedPower } from '../chain/round-state.js';
import { hasQuorum, signsAt, simPeerCount, type ValidatorSet } from '../chain/validator-set.js';
import type { SimLogger } from '../util/log.js';
import { nowNanos } from '../util/time.js';

export interface ConsensusOptions {
  set: ValidatorSet;
  /** False with `--sim-not-signing`: this node's validator never votes. */
  signing: boolean;
  /** `--sim-peers-back-after`, in ms from the consensus start; 0: the peers never leave. */
  peersBackAfterMs: number;
  /** How long a round lasts before the next one starts. */
  roundMs: number;
  log: SimLogger;
  /** Signs this validator's votes (FilePV, sign-state.ts): a vote it refuses is not cast. */
  signer?: VoteSigner;
}

/** What signs this node's votes: CometBFT's FilePV (sign-state.ts). */
export interface VoteSigner {
  readonly last: { height: bigint; round: number; step: number };
  signVote(height: number, round: number, step: number, blockHash: string): Promise<string>;
}

/** A round lasts a block interval, and at least a second (CometBFT's round timeouts are seconds). */
export function roundDuration(blockTimeMs: number): number {
  return Math.max(blockTimeMs, 1000);
}

export class Consensus {
  private readonly options: ConsensusOptions;
  private readonly startedAt = Date.now();
  /** When the peers are out: the upgrade height this process runs (set by `peersAbsentAt`). */
  private windowHeight: number | undefined;
  private height = 0;
  private round = 0;
  private step: number = roundStep.newHeight;
  private roundStart = nowNanos();
  private roundStartMs = Date.now();
  /** When the decide loop last counted the votes (ms since the epoch). */
  private countedAt = Date.now();
  private past: RoundVotes[] = [];
  private committed: RoundVotes | undefined;
  /** The round whose votes this validator has signed (or was refused), and whether it may vote in it. */
  private signedRound: number | undefined;
  private selfVotes = true;

  constructor(options: ConsensusOptions) {
    this.options = options;
  }

  /** Whether this node simulates a set or a missing signature: then blocks store their precommits. */
  get simulatesNetwork(): boolean {
    return this.options.set.validators.length > 1 || !this.options.signing;
  }

  /** The peers are absent at `height` from this process's start, back over `--sim-peers-back-after`. */
  peersAbsentAt(height: number): void {
    if (this.options.peersBackAfterMs > 0 && this.options.set.validators.length > 1) this.windowHeight = height;
  }

  /** A new height begins (between blocks: CometBFT's NewHeight step). */
  newHeight(height: number): void {
    this.height = height;
    this.round = 0;
    this.step = roundStep.newHeight;
    this.roundStart = nowNanos();
    this.roundStartMs = Date.now();
    this.past = [];
    this.committed = undefined;
    this.signedRound = undefined;
    this.selfVotes = true;
  }

  /** The ms (from the process start) at which the validator at `index` votes; undefined: never. */
  private presentFrom(index: number): number | undefined {
    const validator = this.options.set.validators[index];
    if (validator === undefined) return undefined;
    if (validator.self) return this.options.signing && this.selfVotes ? 0 : undefined;
    // A peer with another validator's key (--sim-peer-key) votes only at the heights of its window.
    if (!signsAt(validator, this.height)) return undefined;
    if (this.height !== this.windowHeight) return 0;
    const order = this.options.set.validators.slice(0, index + 1).filter((v) => !v.self).length;
    return (order * this.options.peersBackAfterMs) / simPeerCount;
  }

  /** The votes of the current round at `nowMs`: each present validator voted when the round started or when it came back. */
  private votesAt(nowMs: number, blockHash: string): Map<number, SimVote> {
    const votes = new Map<number, SimVote>();
    this.options.set.validators.forEach((_v, index) => {
      const from = this.presentFrom(index);
      if (from === undefined || this.startedAt + from > nowMs) return;
      const at = Math.max(this.roundStartMs, this.startedAt + from);
      votes.set(index, { blockHash, timeNanos: this.roundStart + BigInt(Math.round((at - this.roundStartMs) * 1e6)) });
    });
    return votes;
  }

  /** When the next absent validator comes back (ms since the epoch), if one will. */
  private nextArrival(nowMs: number): number | undefined {
    let next: number | undefined;
    this.options.set.validators.forEach((_v, index) => {
      const from = this.presentFrom(index);
      if (from === undefined) return;
      const at = this.startedAt + from;
      if (at > nowMs && (next === undefined || at < next)) next = at;
    });
    return next;
  }

  /**
   * Runs the rounds of `height` until more than 2/3 of the power precommits; resolves with the
   * precommits, or undefined when `signal` aborts the wait.
   */
  async decide(height: number, signal: AbortSignal): Promise<Precommits | undefined> {
    const { set, roundMs, log } = this.options;
    if (this.height !== height) this.newHeight(height);
    this.step = roundStep.prevote;
    // A node restarted in the middle of a height goes on in the round it had signed (CometBFT replays its WAL).
    const signed = this.options.signer?.last;
    if (signed !== undefined && signed.height === BigInt(height) && signed.round > this.round) this.round = signed.round;
    for (;;) {
      const hash = proposalHash(height, this.round);
      if (this.signedRound !== this.round) await this.signRound(height, hash);
      const now = Date.now();
      this.countedAt = now;
      const votes = this.votesAt(now, hash);
      if (hasQuorum(set, votedPower(set, votes))) {
        this.step = roundStep.commit;
        this.committed = { round: this.round, prevotes: votes, precommits: votes };
        if (this.round > 0 || this.past.length > 0)
          log.info('more than 2/3 of the voting power precommitted', { module: 'consensus', height, round: this.round });
        return { round: this.round, votes: set.validators.map((v, i) => ({ address: v.address, voted: votes.has(i) })) };
      }
      const roundEnd = this.roundStartMs + roundMs;
      const until = Math.min(roundEnd, this.nextArrival(now) ?? roundEnd);
      try {
        await sleep(Math.max(0, until - now), undefined, { signal });
      } catch (error) {
        if ((error as { name?: string }).name !== 'AbortError') throw error;
        return undefined;
      }
      const woke = Date.now();
      // A vote that came with the timeout is counted first (the loop's top commits with it).
      if (woke >= roundEnd && !hasQuorum(set, votedPower(set, this.votesAt(woke, hash)))) {
        // The round timed out: those present precommitted nil, and the next round starts.
        this.countedAt = woke;
        const ended = this.votesAt(woke, hash);
        const nil = new Map([...ended].map(([i, v]) => [i, { ...v, blockHash: '' }]));
        this.past.push({ round: this.round, prevotes: ended, precommits: nil });
        log.info('waiting for more than 2/3 of the voting power', {
          module: 'consensus',
          height,
          round: this.round,
          prevotes: `${votedPower(set, ended)}/${set.totalPower}`,
        });
        this.round += 1;
        this.roundStart = nowNanos();
        this.roundStartMs = Date.now();
        this.countedAt = this.roundStartMs;
      }
    }
  }

  /**
   * This validator's prevote and precommit of the current round, signed before they count. A refused
   * signature (a step behind the state file: CometBFT's "height regression" …) is logged as CometBFT
   * logs it, and the validator does not vote in this round.
   */
  private async signRound(height: number, hash: string): Promise<void> {
    this.signedRound = this.round;
    this.selfVotes = true;
    const signer = this.options.signer;
    if (signer === undefined || !this.options.signing) return;
    try {
      for (const step of [2, 3]) {
        // Signed before a restart in this very round (the halt at an upgrade height comes after the votes):
        // CometBFT replays its own votes from its WAL rather than signing them again.
        const last = signer.last;
        if (last.height === BigInt(height) && last.round === this.round && step <= last.step) continue;
        await signer.signVote(height, this.round, step, hash);
      }
    } catch (error) {
      this.selfVotes = false;
      this.options.log.error('failed signing vote', { module: 'consensus', height, round: this.round, err: `error signing vote: ${(error as Error).message}` });
    }
  }

  /**
   * The round state now: the current round's votes as the loop last counted them (at each arrival
   * and timeout), as CometBFT shows the votes it has processed — never a quorum it has not acted on.
   */
  roundState(): RoundState {
    const { set } = this.options;
    const current: RoundVotes =
      this.committed ??
      (this.step === roundStep.newHeight
        ? { round: this.round, prevotes: new Map(), precommits: new Map() }
        : { round: this.round, prevotes: this.votesAt(this.countedAt, proposalHash(this.height, this.round)), precommits: new Map() });
    return {
      height: this.height,
      round: this.round,
      step: this.step,
      startNanos: this.roundStart,
      proposalHash: this.step === roundStep.newHeight ? '' : proposalHash(this.height, this.round),
      rounds: [...this.past, current],
      set,
    };
  }
}
