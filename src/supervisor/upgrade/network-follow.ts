/**
 * The follow (issue #26): after a switch, the new node's CometBFT RPC is read once a second (and at
 * once when its websocket says a block was committed) until the network commits past the height and
 * this validator signs: `consensus-round`, `network-waiting`, `upgrade-stalled`, `upgrade-confirmed`,
 * `validator-not-signing`. Read-only, it never delays a restart; what the RPC answers is not trusted.
 * The states and their rules: docs/design/upgrade.md#the-follow.
 */
import {
  ChainAnswerRefusedError,
  type ConsensusReader,
  createConsensusReader,
  keepSubscribed,
  type NodeValidator,
  type subscribeNewBlocks,
} from '../../chain/index.js';
import { type AfterUpgrade, describeAfterUpgrade, type EventBus, type UpgradeRef } from '../../shared/events/index.js';
import type { Logger } from '../../shared/log.js';
import { formatElapsed } from '../../shared/units.js';
import { roundProblem } from './round-problem.js';

export interface FollowOptions {
  upgrade: UpgradeRef;
  /** The first block the new binary commits: the height (a plan), or the height + 1 (a manual upgrade's --halt-height). */
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
      text: text ?? describeAfterUpgrade(state, event === 'upgrade-stalled' ? formatElapsed(Date.now() - switchedAt) : undefined),
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
    // A block's wake-up may have confirmed meanwhile: this round is over. A round below the first block is
    // a node still starting (its consensus state at 0 before the handshake): not yet the wait at the height.
    if (confirmed || round.height < first) return;
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
      // `noticedMs`: from the block's time to this event, how late chainvisor saw it (bench and tests); 0 for a block from the future.
      emit('upgrade-confirmed', { blockTime: new Date(commit.time).toISOString(), noticedMs: Math.max(0, noticedAt - commit.time) });
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
  // The subscription is tried from the start, every 200 ms until the node answers: a node that commits its
  // first block before its RPC listens is read as soon as the websocket opens (its first message wakes a reading).
  subscribe();
  void wake().finally(schedule);

  return {
    done,
    stop() {
      if (!stopped) end();
    },
  };
}
