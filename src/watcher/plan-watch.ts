/**
 * The plan on chain, while `run` is active: reads the chain's scheduled plan and latest height from the
 * node (its gRPC, else its CometBFT RPC: src/chain's reader) every CHAINVISOR_PLAN_POLL_INTERVAL and
 * says on the bus what it read: chain-height, a plan scheduled or its Info changed (upgrade-scheduled), its
 * height moved (upgrade-rescheduled), gone before its height (upgrade-cancelled: a passed MsgCancelUpgrade,
 * or another plan in its place). It only tells; staging (src/download/staging) listens. The node is only ever
 * queried: a node not listening yet, or restarting, is retried quietly (after 1, 2, 4 … seconds up to
 * the interval, until it answers), and one that keeps not answering is reported once.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { addressesFor, type ChainAddresses, type ChainClient, createChainReader, type Plan, type ScheduledPlan } from '../chain/index.js';
import { type Config, formatDuration } from '../config/index.js';
import { backoffMs } from '../shared/backoff.js';
import type { EventBus } from '../shared/events/index.js';
import type { Logger } from '../shared/log.js';
import type { Running } from './due.js';

export interface PlanWatcherOptions {
  config: Config;
  logger: Logger;
  events: EventBus;
  /** Reads what `current` runs from (home/layout's readCurrent): a plan gone from chain that it records was applied, not cancelled. */
  current: () => Promise<Running>;
  /** Where the node listens (src/chain addresses.ts); by default from the settings and DAEMON_HOME's files. */
  addresses?: ChainAddresses;
  /** Replaces the chain reader (tests). */
  client?: ChainClient;
  /** Tests: how long a running node may not answer before it is reported (default 60 s). */
  unreachableAfterMs?: number;
}

export interface PlanWatcher {
  /** The plan last read from the chain: `null` none scheduled, `undefined` never read. */
  lastPlan(): ScheduledPlan | null | undefined;
  /** At the halt: warns when upgrade-info.json disagrees with the plan read from the chain (the file decides). */
  crossCheck(plan: Plan): void;
  stop(): Promise<void>;
}

const same = (a: ScheduledPlan | null | undefined, b: ScheduledPlan | null | undefined) =>
  a === b || (a != null && b != null && a.name === b.name && a.height === b.height && a.info === b.info);
/**
 * CHAINVISOR_PLAN_POLL_INTERVAL, or every 5 blocks when the chain is faster than that (never more often
 * than once a second): a plan scheduled 100 blocks ahead on a 200 ms chain is 20 s away, and a 10 s
 * poll would eat half of the time the download has.
 */
export function pollInterval(configuredMs: number, blockMs: number | undefined): number {
  // Until two heights have been read the block time is unknown: read again in a second.
  if (blockMs === undefined || !Number.isFinite(blockMs)) return Math.min(1000, configuredMs);
  return Math.min(configuredMs, Math.max(1000, 5 * blockMs));
}

/**
 * Until the node answers after a start: every second at first (a restarted node is read as soon as it
 * listens), doubling up to CHAINVISOR_PLAN_POLL_INTERVAL — a node with no gRPC at all (many validators
 * turn it off) is not asked every second for ever.
 */
export function unansweredWait(misses: number, configuredMs: number): number {
  return backoffMs({ attempt: Math.max(1, misses), baseMs: 1000, maxMs: configuredMs });
}

/** How long a running node may not answer before it is reported: a node with a large state opens gRPC late. */
const defaultUnreachableAfterMs = 60_000;

/** With no plan scheduled and the block time known, the height is read every this many plan reads. */
const heightEvery = 3;

export function startPlanWatcher(options: PlanWatcherOptions): PlanWatcher {
  const { config, events } = options;
  const logger = options.logger.child({ component: 'plan-watcher' });
  const client = options.client ?? createChainReader({ addresses: options.addresses ?? addressesFor({ config }) });
  const stopped = new AbortController();
  let plan: ScheduledPlan | null | undefined;
  let height: number | undefined;
  let answered = false;
  // Reads the node did not answer since its last start (or since it last answered): the wait backs off.
  let misses = 0;
  // Reads of the plan since the height was last read (while no plan is scheduled).
  let heightSkips = 0;
  let saidUnreachable = false;
  // Misses count only while a node runs (none during an upgrade's stop, backup or download).
  let nodeSince: number | undefined;
  const unreachableAfterMs = options.unreachableAfterMs ?? defaultUnreachableAfterMs;
  // Block time, estimated from the heights read: on a fast chain the plan is polled every 5 blocks.
  let sample: { height: number; at: number } | undefined;
  let blockMs: number | undefined;
  // A node (re)start: read it again as soon as it answers, not an interval later.
  const offBus = events.on((event) => {
    if (event.event === 'node-started') {
      answered = false;
      misses = 0;
      nodeSince = Date.now();
    } else if (event.event === 'node-stopped') {
      nodeSince = undefined;
    }
  });

  const upgradeOf = (p: ScheduledPlan) => ({ name: p.name, height: p.height });

  async function tick(): Promise<void> {
    let read: ScheduledPlan | null;
    let fresh = false;
    try {
      read = await client.currentPlan();
      // The height matters while a plan is scheduled (blocks left) or the block time is unknown; with
      // neither, every third read keeps the block time and the status current at a third of the cost
      // (a GetLatestBlock answer holds the whole block: issue "quiet at rest").
      if (read !== null || blockMs === undefined || height === undefined || ++heightSkips >= heightEvery) {
        height = await client.latestHeight();
        heightSkips = 0;
        fresh = true;
      }
    } catch (error) {
      if (nodeSince === undefined) return;
      misses += 1;
      logger.debug({ err: error }, 'the node does not answer yet; trying again');
      // Said once until it answers: many validators turn gRPC off, and a node that answers on neither costs this.
      const silentMs = Date.now() - nodeSince;
      if (!saidUnreachable && silentMs >= unreachableAfterMs) {
        saidUnreachable = true;
        const cost = config.allowDownloadBinaries
          ? 'a scheduled upgrade cannot be read, so nothing is staged: its binary is downloaded at the halt, with the node down'
          : "a scheduled upgrade cannot be read, so nobody is warned when its height nears and its binary is not installed (run 'chainvisor add-upgrade' ahead)";
        logger.warn(
          { asked: client.describe(), reason: error instanceof Error ? error.message : String(error) },
          "no answer from %s since the node started %d s ago: %s. Point DAEMON_GRPC_ADDRESS or CHAINVISOR_RPC_ADDRESS at the node when it listens elsewhere than its flags and config files say ('chainvisor config' shows both addresses and where they came from); CHAINVISOR_PLAN_POLL_INTERVAL=0s stops asking. Asking again every %s",
          client.describe(),
          Math.round(silentMs / 1000),
          cost,
          formatDuration(config.planPollInterval),
        );
      }
      return;
    }
    if (saidUnreachable)
      logger.info({ address: client.address }, 'the node answers again, at %s; scheduled upgrades are staged before the halt', client.address);
    answered = true;
    misses = 0;
    saidUnreachable = false;
    const before = plan;
    const left = before != null && (read === null || read.name !== before.name);
    // A plan gone from chain that `current` records was applied (by this run's upgrade), not cancelled.
    const applied = left && (await options.current().catch(() => undefined))?.plan?.name === before.name;
    // One reading's events in one go, the height first: staging checks the deadline once all have arrived.
    if (fresh && height !== undefined) {
      const at = Date.now();
      if (sample !== undefined && height > sample.height) blockMs = (at - sample.at) / (height - sample.height);
      if (sample === undefined || height !== sample.height) sample = { height, at };
      events.emit('chain-height', { text: `chain at height ${height}`, data: { height } });
    }
    if (left && applied) logger.debug({ upgrade: before.name }, 'the plan was applied');
    else if (left) cancelled(before, read);
    if (read !== null && !same(read, before)) scheduled(before, read);
    plan = read;
  }

  // The SDK keeps one plan: a cancel removes it, a new plan replaces it, and a plan applied leaves the
  // chain at its height (told apart above, through `current`).
  function cancelled(before: ScheduledPlan, after: ScheduledPlan | null): void {
    const why =
      after === null
        ? `upgrade "${before.name}" at height ${before.height} was cancelled on chain`
        : `upgrade "${before.name}" at height ${before.height} was replaced on chain by "${after.name}" at height ${after.height}`;
    events.emit('upgrade-cancelled', {
      upgrade: upgradeOf(before),
      text: `${why}: nothing will be switched at height ${before.height}`,
      ...(after === null ? {} : { data: { replacedBy: upgradeOf(after) } }),
    });
  }

  function scheduled(before: ScheduledPlan | null | undefined, after: ScheduledPlan): void {
    const sameName = before != null && before.name === after.name;
    const newInfo = sameName && before.info !== after.info ? ', with a new Info' : '';
    if (sameName && before.height !== after.height) {
      const text = `upgrade "${after.name}" moved on chain from height ${before.height} to height ${after.height}${newInfo}`;
      events.emit('upgrade-rescheduled', { upgrade: upgradeOf(after), text, data: { from: before.height, info: after.info } });
      return;
    }
    const text = sameName
      ? `upgrade "${after.name}" at height ${after.height} changed on chain: new Info`
      : `upgrade "${after.name}" scheduled on chain at height ${after.height}`;
    events.emit('upgrade-scheduled', { upgrade: upgradeOf(after), text, data: { info: after.info } });
  }

  const loop = (async () => {
    while (!stopped.signal.aborted) {
      await tick().catch((error: unknown) => logger.warn({ err: error }, 'reading the scheduled plan failed'));
      const wait = !answered ? unansweredWait(misses, config.planPollInterval) : pollInterval(config.planPollInterval, blockMs);
      try {
        await sleep(wait, undefined, { signal: stopped.signal, ref: false });
      } catch {
        return;
      }
    }
  })();

  return {
    lastPlan: () => plan,
    crossCheck(halted) {
      if (plan == null) return;
      if (plan.name !== halted.name || plan.height !== halted.height || plan.info !== halted.info) {
        logger.warn(
          {
            upgrade: halted.name,
            file: { name: halted.name, height: halted.height, info: halted.info },
            chain: { name: plan.name, height: plan.height, info: plan.info },
          },
          'upgrade-info.json differs from the plan last read from the chain; the file decides',
        );
      }
    },
    async stop() {
      stopped.abort();
      offBus();
      await loop;
      client.close();
    },
  };
}
