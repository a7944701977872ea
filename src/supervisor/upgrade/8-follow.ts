/**
 * The follow (issue #26): an upgrade is over for the operator when the network has committed the
 * first block at or past the height and their validator signed it, not when the new process starts.
 * Started by the run loop right after the node it switched to is launched, it reads that node's
 * CometBFT RPC (src/chain/consensus.ts) once a second, and at once when the node's websocket says a
 * block was committed (src/chain/subscription.ts, open only while the follow lasts; the reading
 * each second is the fallback, and what shows the round's shares during the wait), and emits what it sees:
 *
 *   waiting      the RPC answers, no block ≥ height yet: `consensus-round` at each change of the round's
 *                shares (status, metrics), `network-waiting` when the wait starts, then at most every
 *                30 s while the share changes (logs, webhooks);
 *   stalled      still waiting CHAINVISOR_CONFIRM_WARN after the switch: `upgrade-stalled`, again every
 *                CHAINVISOR_CONFIRM_WARN; the follow goes on;
 *   confirmed    block ≥ height committed: `upgrade-confirmed`, with `seconds` from the switch
 *                (upgrade-applied) to that block's header time — the network's own clock for when it
 *                resumed, which does not depend on how fast chainvisor polls — and `signed`, whether this
 *                node's validator is in that block's commit (null with no voting power);
 *   not-signing  with voting power, absent from the commits of the first 3 blocks ≥ height:
 *                `validator-not-signing`; the follow goes on reading each new commit, and the first one
 *                this validator signs is `upgrade-confirmed` again, signed (issue #35: the alert on
 *                chainvisor_validator_signed resolves when the validator signs, not at the next upgrade).
 * It ends once confirmed and signed (or with no voting power), or when stopped (chainvisor stops, the
 * next upgrade, the node exits). Read-only: it never touches the node, never delays a restart, and a
 * failing read is only tried again a second later.
 *
 * What the RPC answers is not trusted (issue #31): an answer of another shape, too large or too deep is
 * refused by the reader, and the follow goes on with the next answer. A share above 100 % is shown as
 * 100 %, and a bit array whose length is not the validator set's says nothing of this validator's vote.
 * Each is a warning in the log (one a minute at most for each kind) and, while it lasts, a problem in
 * the status (the events' `rpcProblem`): the RPC is broken, lying, or not this chain's.
 *
 * `UpgradeFollows` starts one for the node the run loop starts right after each upgrade-applied.
 */
import {
  ChainAnswerRefusedError,
  type ConsensusReader,
  createConsensusReader,
  keepSubscribed,
  type NodeValidator,
  type RoundState,
  type subscribeNewBlocks,
} from '../../chain/index.js';
import { rpcEndpoint } from '../../config/index.js';
import { type AfterUpgrade, describeAfterUpgrade, type EventBus, type UpgradeRef } from '../../shared/events/index.js';
import type { Logger } from '../../shared/log.js';

export interface FollowOptions {
  upgrade: UpgradeRef;
  /**
   * The first block the new binary commits: the upgrade height for a governance plan (the old binary
   * halts before committing it), the height + 1 for a manual upgrade (the old binary commits its
   * --halt-height). Default: the upgrade height.
   */
  firstBlock?: number;
  /** When the switch happened (the upgrade-applied event's time), ms since the epoch. */
  switchedAt: number;
  /** The node's CometBFT RPC (addressesFor). */
  rpcAddress: string;
  events: EventBus;
  logger: Logger;
  /** CHAINVISOR_CONFIRM_WARN, in ms. */
  warnMs: number;
  /** Between two readings; default 1 s. */
  intervalMs?: number;
  /** Replaces the RPC reader (tests). */
  reader?: ConsensusReader;
  /** Replaces the NewBlock subscription (tests); `false`: poll only. */
  subscribe?: typeof subscribeNewBlocks | false;
}

export interface Follow {
  /** Ends the follow at once: a reading under way is dropped (never awaited: nothing waits on the follow). */
  stop(): void;
  /** Resolves when the follow ends by itself (confirmed and 3 blocks seen) or is stopped. */
  done: Promise<void>;
}

/** `network-waiting` at most this often while the share changes. */
const waitingEveryMs = 30_000;
/** A validator absent from the commits of this many first blocks is not signing. */
const signingBlocks = 3;
/** A hostile or broken RPC answers wrongly every second: one warning a minute says it. */
const warnEveryMs = 60_000;

export function startFollow(options: FollowOptions): Follow {
  const { upgrade, events, switchedAt, warnMs } = options;
  const interval = options.intervalMs ?? 1000;
  const first = options.firstBlock ?? upgrade.height;
  const reader = options.reader ?? createConsensusReader({ address: options.rpcAddress, timeoutMs: Math.max(interval, 2000) });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finish = resolve));

  let state: AfterUpgrade = {
    upgrade: upgrade.name,
    state: 'waiting',
    height: null,
    round: null,
    prevoteRatio: null,
    precommitRatio: null,
    ownPrevote: null,
    signed: null,
    seconds: null,
    since: new Date(switchedAt).toISOString(),
  };
  let order: string[] | undefined;
  let waitingSent: { at: number; ratio: number | null } | undefined;
  let nextStall = switchedAt + warnMs;
  let confirmed = false;
  /** Heights ≥ upgrade height whose commit was read for this validator's signature. */
  let checked = 0;
  /** What is wrong with the RPC's last answer, for the status (`rpcProblem` in the events' data); null when nothing. */
  let rpcProblem: string | null = null;
  /** When each kind of warning was last logged: a hostile or broken RPC answers wrongly every second. */
  const warnedAt = new Map<'refused' | 'wrong', number>();
  const warn = (kind: 'refused' | 'wrong', text: string): void => {
    const now = Date.now();
    const last = warnedAt.get(kind);
    const level = last !== undefined && now - last < warnEveryMs ? 'debug' : 'warn';
    if (level === 'warn') warnedAt.set(kind, now);
    options.logger[level]({ upgrade: upgrade.name }, `after-upgrade follow: ${text}`);
  };

  const emit = (
    event: 'consensus-round' | 'network-waiting' | 'upgrade-confirmed' | 'validator-not-signing' | 'upgrade-stalled',
    data = {},
    text?: string,
  ): void => {
    // A reading that ends after a stop says nothing about the next upgrade or node.
    if (stopped) return;
    events.emit(event, {
      upgrade,
      text: text ?? describeAfterUpgrade(state, event === 'upgrade-stalled' ? shownDuration(Date.now() - switchedAt) : undefined),
      data: { ...state, rpcProblem, ...data },
    });
  };

  // The NewBlock subscription: a block wakes the reading at once instead of up to a second later.
  const blocks = keepSubscribed({
    address: options.rpcAddress,
    ...(options.subscribe === undefined ? {} : { subscribe: options.subscribe }),
    onBlock: () => void wake(true),
    starting: () => known === undefined,
    onEnd: (reason) => options.logger.debug({ upgrade: upgrade.name, reason }, 'after-upgrade follow: no NewBlock subscription; reading each second'),
  });
  const subscribe = (): void => blocks.ensure();

  const end = (): void => {
    stopped = true;
    clearTimeout(timer);
    blocks.close();
    reader.close();
    finish();
  };

  const waiting = async (validator: NodeValidator): Promise<void> => {
    const round = await reader.roundState();
    if (validator.votingPower > 0 && order === undefined) order = await reader.validatorOrder();
    // A block's wake-up may have confirmed meanwhile: this round is over.
    if (confirmed) return;
    const problem = roundProblem(round, validator.votingPower > 0 ? order : undefined);
    if (problem !== null && problem !== rpcProblem) warn('wrong', `${problem}; the node's RPC is wrong or is not this chain's`);
    // The set may have changed since it was read (or was read wrong): read again at the next tick.
    if (order !== undefined && round.prevotes !== undefined && round.prevotes.voted.length !== order.length) order = undefined;
    const index = problem === null ? (order?.indexOf(validator.address) ?? -1) : -1;
    const ownPrevote = validator.votingPower === 0 ? null : index >= 0 && round.prevotes ? (round.prevotes.voted[index] ?? false) : null;
    const next = {
      height: round.height,
      round: round.round,
      prevoteRatio: round.prevotes?.ratio ?? null,
      precommitRatio: round.precommits?.ratio ?? null,
      ownPrevote,
    };
    const changed = problem !== rpcProblem || (Object.keys(next) as (keyof typeof next)[]).some((k) => next[k] !== state[k]);
    state = { ...state, ...next };
    rpcProblem = problem;
    if (changed) emit('consensus-round');
    const now = Date.now();
    if (waitingSent === undefined || (now - waitingSent.at >= waitingEveryMs && waitingSent.ratio !== state.prevoteRatio)) {
      waitingSent = { at: now, ratio: state.prevoteRatio };
      emit('network-waiting');
    }
  };

  const afterHeight = async (validator: NodeValidator): Promise<void> => {
    const hasPower = validator.votingPower > 0;
    if (!confirmed) {
      const commit = await reader.commit(first);
      // Read twice at once (a block's wake-up beside the reading each second): confirmed once.
      if (confirmed) return;
      confirmed = true;
      checked = 1;
      rpcProblem = null;
      const signed = hasPower ? commit.signers.has(validator.address) : null;
      const noticedAt = Date.now();
      state = {
        ...state,
        state: 'confirmed',
        height: first,
        round: null,
        prevoteRatio: null,
        precommitRatio: null,
        signed,
        seconds: Math.max(0, commit.time - switchedAt) / 1000,
        since: new Date(noticedAt).toISOString(),
      };
      // `noticedMs`: from the block's time to this event, how late chainvisor saw it (bench and tests).
      emit('upgrade-confirmed', { blockTime: new Date(commit.time).toISOString(), noticedMs: noticedAt - commit.time });
      if (signed !== false) return end();
    }
    // With voting power and absent from the first block: the next two decide.
    while (checked < signingBlocks && validator.latestHeight >= first + checked) {
      const commit = await reader.commit(first + checked);
      checked += 1;
      rpcProblem = null;
      if (commit.signers.has(validator.address)) return end();
    }
    if (checked === signingBlocks) {
      state = { ...state, state: 'not-signing', since: new Date().toISOString() };
      emit('validator-not-signing');
      checked += 1;
    }
    // Not signing: each new commit, the newest only (a follow that fell behind does not read the backlog).
    if (checked > signingBlocks && validator.latestHeight >= lastRead + 1) {
      const height = validator.latestHeight;
      const commit = await reader.commit(height);
      lastRead = height;
      if (commit.signers.has(validator.address)) {
        state = { ...state, state: 'confirmed', height, signed: true, since: new Date().toISOString() };
        emit('upgrade-confirmed', { signsAgain: true }, `${upgrade.name}: this validator signs again, at height ${height}`);
        end();
      }
    }
  };
  /** The newest height whose commit was read while not signing. */
  let lastRead = first + signingBlocks - 1;

  /** This node's validator as last read: a block's wake-up reads the first block's commit straight away with it. */
  let known: NodeValidator | undefined;
  // Woken by a block while waiting: it is (almost always) the first one, as the chain waits at the height;
  // its commit is read at once, without /status first. Not there yet: an error, and the reading goes on.
  const readFirstBlock = async (validator: NodeValidator): Promise<void> => {
    try {
      await afterHeight({ ...validator, latestHeight: first });
    } catch (error) {
      options.logger.debug({ err: error, upgrade: upgrade.name }, 'after-upgrade follow: the first block is not there yet');
    }
  };
  const read = async (): Promise<void> => {
    try {
      const validator = await reader.validator();
      if (stopped) return;
      known = validator;
      subscribe();
      if (validator.latestHeight < first) await waiting(validator);
      else await afterHeight(validator);
    } catch (error) {
      // The new node may not listen yet, or be busy migrating: tried again at the next tick.
      if (error instanceof ChainAnswerRefusedError) {
        warn('refused', `${error.message}; asked again each second`);
        // Said in the status while waiting; once confirmed, a consensus-round would tell the metrics it is not.
        if (!confirmed && rpcProblem !== error.message) {
          rpcProblem = error.message;
          emit('consensus-round');
        }
      } else options.logger.debug({ err: error, upgrade: upgrade.name }, 'after-upgrade follow: no answer from the node yet');
    }
    if (stopped || confirmed) return;
    if (Date.now() >= nextStall) {
      while (nextStall <= Date.now()) nextStall += warnMs;
      state = { ...state, state: 'stalled', since: state.state === 'stalled' ? state.since : new Date().toISOString() };
      emit('upgrade-stalled');
    }
  };

  // One reading at a time: a block that arrives during one is read right after it.
  let reading = false;
  let again = false;
  // A block does not wait for the reading under way (its /status and /consensus_state can take a while):
  // the first block's commit is read beside it, one such reading at a time.
  let blockReading = false;
  const wake = async (block = false): Promise<void> => {
    if (block && !confirmed && known !== undefined) {
      if (blockReading) return;
      blockReading = true;
      try {
        await readFirstBlock(known);
      } finally {
        blockReading = false;
      }
      if (confirmed || stopped) return;
    }
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        await read();
      } while (again && !stopped);
    } finally {
      reading = false;
    }
  };
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      subscribe();
      void wake().finally(schedule);
    }, interval);
    timer.unref();
  };
  void wake().finally(schedule);

  return {
    done,
    stop() {
      if (!stopped) end();
    },
  };
}

/**
 * The follows of one `run`: each upgrade-applied is remembered (its upgrade and when), and the node the
 * run loop starts right after it is followed on its RPC (a manual upgrade's first block is the height
 * + 1: its old binary committed the halt height).
 */
export class UpgradeFollows {
  private applied: { upgrade: UpgradeRef; at: number } | undefined;
  private manual = false;
  private follow: Follow | undefined;
  private readonly options: Pick<FollowOptions, 'events' | 'logger' | 'warnMs'> & { rpc: () => { address: string; source: string } };

  constructor(options: UpgradeFollows['options']) {
    this.options = options;
    options.events.on((e) => {
      if (e.event === 'upgrade-applied' && e.upgrade) {
        this.applied = { upgrade: e.upgrade, at: e.time };
        this.manual = false;
      }
    });
  }

  /** The upgrade just applied was a manual one. */
  manualApplied(): void {
    this.manual = true;
  }

  /** Follows the node just started after an upgrade; it never holds anything up. */
  start(): void {
    this.follow?.stop();
    const applied = this.applied;
    if (applied === undefined) return;
    const { events, logger, warnMs } = this.options;
    const rpc = this.options.rpc();
    const endpoint = rpcEndpoint(rpc.address);
    if (endpoint === undefined || (endpoint.kind === 'tcp' && endpoint.port === 0)) {
      // Port 0 (a test node) or no address: nothing to dial, and no false "stalled" for it.
      logger.info({ rpc: rpc.address, source: rpc.source }, "not following the network after the upgrade: the node's RPC address cannot be dialled");
      return;
    }
    const firstBlock = applied.upgrade.height + (this.manual ? 1 : 0);
    this.follow = startFollow({ upgrade: applied.upgrade, switchedAt: applied.at, firstBlock, rpcAddress: rpc.address, events, logger, warnMs });
  }

  /** Ends the follow under way (the node it follows stops). */
  stop(): void {
    this.follow?.stop();
  }
}

/** 600000 → `10m`, 90000 → `1m30s`. */
function shownDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  const m = Math.floor(s / 60);
  return m === 0 ? `${s}s` : s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
}

/**
 * What cannot be true of a round state: more voted power than there is, or a bit array whose length is
 * not the validator set's (then its entries say nothing of this validator's vote). Null when nothing.
 */
function roundProblem(round: RoundState, order: string[] | undefined): string | null {
  const problems: string[] = [];
  for (const [name, share] of [
    ['prevote', round.prevotes],
    ['precommit', round.precommits],
  ] as const) {
    if (share === undefined) continue;
    if (share.overstated) problems.push(`the ${name} share claims ${share.power} of ${share.total} voting power, more than all of it (shown as 100 %)`);
    if (order !== undefined && share.voted.length !== order.length)
      problems.push(`the ${name} bit array has ${share.voted.length} entries for a validator set of ${order.length}`);
  }
  return problems.length === 0 ? null : problems.join('; ');
}
