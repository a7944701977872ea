/**
 * Plan awareness while `run` is active: reads the chain's scheduled plan and latest height from the
 * node (its gRPC, else its CometBFT RPC: src/watcher/chain's reader) every CHAINVISOR_PLAN_POLL_INTERVAL, and stages the plan's binary
 * in the background as soon as it is scheduled (DAEMON_ALLOW_DOWNLOAD_BINARIES=true), retrying with
 * backoff until the height. A plan cancelled or changed on chain aborts or restages. The node is only
 * ever queried: a node not listening yet, or restarting, is retried quietly (after 1, 2, 4 … seconds up
 * to the interval, until it answers), and one that keeps not answering is reported once.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { type Config, formatDuration } from '../../config/index.js';
import { binaryPath, isFile, type Layout, planDir, readCurrent } from '../../home/layout/index.js';
import type { EventBus } from '../../shared/events/index.js';
import type { Logger } from '../../shared/log.js';
import { addressesFor, type ChainAddresses, type ChainClient, createChainReader, type ScheduledPlan } from '../../watcher/chain/index.js';
import type { Plan } from '../../watcher/plan/index.js';
import type { Downloader } from '../index.js';
import { ChecksumDisagreementError } from '../sources/index.js';
import { discardStaged, stagePlan } from './stage.js';

const isDisagreement = (error: unknown): error is ChecksumDisagreementError => error instanceof ChecksumDisagreementError;

export interface PlanWatcherOptions {
  config: Config;
  layout: Layout;
  logger: Logger;
  events: EventBus;
  /** Where the node listens (src/watcher/chain addresses.ts); by default from the settings and DAEMON_HOME's files. */
  addresses?: ChainAddresses;
  /** Replaces the chain reader (tests). */
  client?: ChainClient;
  download?: Downloader;
  /** Tests: backoff between failed staging attempts (default 5 s doubling to 60 s). */
  retryDelayMs?: (attempt: number) => number;
  /** Tests: how long a running node may not answer before it is reported (default 60 s). */
  unreachableAfterMs?: number;
}

export interface PlanWatcher {
  /** The plan last read from the chain: `null` none scheduled, `undefined` never read. */
  lastPlan(): ScheduledPlan | null | undefined;
  /** At the halt: waits for a staging of this plan still under way, and stages it no more. */
  settle(plan: Plan): Promise<void>;
  /** At the halt: warns when upgrade-info.json disagrees with the plan read from the chain (the file decides). */
  crossCheck(plan: Plan): void;
  stop(): Promise<void>;
}

interface Job {
  plan: ScheduledPlan;
  abort: AbortController;
  done: Promise<void>;
  staged: boolean;
  lastError: string | undefined;
  failedReported: boolean;
  disagreementReported: boolean;
  /** Ends the wait between failed attempts: chainvisor stopping, or the node halted for this plan. */
  pause: AbortController;
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
  return Math.min(configuredMs, 1000 * 2 ** Math.max(0, misses - 1));
}

/** How long a running node may not answer before it is reported: a node with a large state opens gRPC late. */
const defaultUnreachableAfterMs = 60_000;

/** With no plan scheduled and the block time known, the height is read every this many plan reads. */
const heightEvery = 3;

const defaultRetryDelay = (attempt: number) => Math.min(60_000, 5000 * 2 ** (attempt - 1));

export function startPlanWatcher(options: PlanWatcherOptions): PlanWatcher {
  const { config, layout, events } = options;
  const logger = options.logger.child({ component: 'plan-watcher' });
  const client = options.client ?? createChainReader({ addresses: options.addresses ?? addressesFor({ config }) });
  const retryDelay = options.retryDelayMs ?? defaultRetryDelay;
  const stopped = new AbortController();
  let plan: ScheduledPlan | null | undefined;
  let height: number | undefined;
  let job: Job | undefined;
  const settled = new Set<string>();
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
  let warnedFor: string | undefined;
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
    if (fresh && height !== undefined) {
      const at = Date.now();
      if (sample !== undefined && height > sample.height) blockMs = (at - sample.at) / (height - sample.height);
      if (sample === undefined || height !== sample.height) sample = { height, at };
      events.emit('chain-height', { text: `chain at height ${height}`, data: { height } });
    }
    if (!same(read, plan)) await onPlanChange(plan, read);
    plan = read;
    if (plan !== null) await checkDeadline(plan);
  }

  async function onPlanChange(before: ScheduledPlan | null | undefined, after: ScheduledPlan | null): Promise<void> {
    if (before != null && (after === null || after.name !== before.name)) {
      job?.abort.abort();
      job = undefined;
      const current = await readCurrent(layout).catch(() => undefined);
      if (current?.plan?.name === before.name) {
        logger.debug({ upgrade: before.name }, 'the plan was applied');
      } else {
        const text =
          after === null
            ? `upgrade "${before.name}" at height ${before.height} was cancelled on chain`
            : `upgrade "${before.name}" was replaced on chain by "${after.name}"`;
        logger.warn({ event: 'plan-cancelled', upgrade: before.name, height: before.height }, text);
        events.emit('plan-cancelled', { upgrade: upgradeOf(before), text });
        if (config.allowDownloadBinaries && (await discardStaged({ plan: before, config, layout, logger }).catch(() => false))) {
          logger.info({ upgrade: before.name }, 'the binary staged for it was moved aside');
        }
      }
    }
    if (after === null) return;
    const changed = before != null && before.name === after.name;
    const text = changed
      ? `upgrade "${after.name}" changed on chain: height ${before.height} → ${after.height}${before.info === after.info ? '' : ', new Info'}`
      : `upgrade "${after.name}" scheduled on chain at height ${after.height}`;
    logger.info({ event: 'upgrade-scheduled', upgrade: after.name, height: after.height, info: after.info }, text);
    events.emit('upgrade-scheduled', { upgrade: upgradeOf(after), text, data: { info: after.info } });
    warnedFor = undefined;
    if (job !== undefined && job.plan.info !== after.info) {
      job.abort.abort();
      job = undefined;
    }
    if (job !== undefined) job.plan = after;
    else if (config.allowDownloadBinaries && !settled.has(after.name)) job = startJob(after);
  }

  function startJob(target: ScheduledPlan): Job {
    const abort = new AbortController();
    const pause = new AbortController();
    abort.signal.addEventListener('abort', () => pause.abort(), { once: true });
    const state: Job = {
      pause,
      plan: target,
      abort,
      done: Promise.resolve(),
      staged: false,
      lastError: undefined,
      failedReported: false,
      disagreementReported: false,
    };
    state.done = (async () => {
      for (let attempt = 1; !abort.signal.aborted; attempt++) {
        const started = Date.now();
        try {
          const result = await stagePlan({
            plan: target,
            config,
            layout,
            logger,
            signal: abort.signal,
            ...(options.download ? { download: options.download } : {}),
          });
          state.staged = true;
          const text =
            result.status === 'downloaded'
              ? `binary for upgrade "${target.name}" staged at ${result.binary} in ${((Date.now() - started) / 1000).toFixed(1)} s, before the halt`
              : `binary for upgrade "${target.name}" already in place at ${result.binary} (${result.status === 'installed' ? 'installed by the operator' : 'staged earlier'})`;
          const source = result.source === undefined ? {} : { source: result.source };
          const said = result.source === undefined ? text : `${text}; from ${result.source}`;
          logger.info({ event: 'binary-staged', upgrade: target.name, height: target.height, binary: result.binary, status: result.status, ...source }, said);
          events.emit('binary-staged', {
            upgrade: upgradeOf(target),
            text: said,
            data: { binary: result.binary, dir: result.dir, status: result.status, ms: Date.now() - started, ...source },
          });
          return;
        } catch (error) {
          if (abort.signal.aborted) return;
          state.lastError = error instanceof Error ? error.message : String(error);
          const wait = retryDelay(attempt);
          const text = `staging the binary for upgrade "${target.name}" failed (attempt ${attempt}): ${state.lastError}; retrying in ${Math.round(wait / 1000)} s`;
          logger.warn({ event: 'staging-failed', upgrade: target.name, height: target.height, attempt }, text);
          if (isDisagreement(error) && !state.disagreementReported) {
            // Found days ahead, not at the height: said once per plan, louder as the height nears (issue #34).
            state.disagreementReported = true;
            const blocksLeft = height === undefined ? undefined : target.height - height;
            const near = blocksLeft !== undefined && blocksLeft <= config.stageWarnBlocks;
            logger.error({ event: 'checksum-disagreement', upgrade: target.name, height: target.height, sources: error.values }, error.message);
            events.emit('checksum-disagreement', {
              upgrade: upgradeOf(target),
              text: error.message,
              data: { sources: error.values, platform: error.platform, near, ...(blocksLeft === undefined ? {} : { blocksLeft }), hint: error.hint },
            });
          }
          if (!state.failedReported) {
            state.failedReported = true;
            events.emit('staging-failed', { upgrade: upgradeOf(target), text, data: { attempt, reason: state.lastError } });
          }
          // At the halt the node is down and no height comes: the halt itself downloads (or says why it cannot).
          if (settled.has(target.name)) return;
          try {
            await sleep(wait, undefined, { signal: state.pause.signal });
          } catch {
            return;
          }
          // Past the height the halt itself downloads (or reports why it cannot).
          if (height !== undefined && height >= target.height) return;
        }
      }
    })();
    return state;
  }

  /** Loud warning when the binary is still not in place CHAINVISOR_STAGE_WARN_BLOCKS before the height. */
  async function checkDeadline(target: ScheduledPlan): Promise<void> {
    if (height === undefined) return;
    const left = target.height - height;
    if (left > config.stageWarnBlocks || left < 0) return;
    if (job?.staged || (await isFile(binaryPath(layout, planDir(layout, target.name))).catch(() => false))) return;
    const failing = !config.allowDownloadBinaries || job?.lastError !== undefined;
    // A download still under way is worth a warning; a failing or impossible one is an error, said once.
    const key = `${target.name}@${target.height}:${failing ? 'failing' : 'under way'}`;
    if (warnedFor === key || warnedFor === `${target.name}@${target.height}:failing`) return;
    warnedFor = key;
    const why = !config.allowDownloadBinaries
      ? `it is not installed and DAEMON_ALLOW_DOWNLOAD_BINARIES is false: run 'chainvisor add-upgrade ${target.name} <path-to-binary>' now`
      : job?.lastError !== undefined
        ? `staging keeps failing (${job.lastError}); fix the Info's URL or install it with 'chainvisor add-upgrade ${target.name} <path-to-binary>'`
        : 'the download is still under way';
    const text = `upgrade "${target.name}" is ${left} blocks away (height ${target.height}) and its binary is NOT staged: ${why}`;
    if (!failing) {
      logger.warn({ upgrade: target.name, height: target.height, blocksLeft: left }, text);
      return;
    }
    logger.error({ event: 'staging-failed', upgrade: target.name, height: target.height, blocksLeft: left }, text);
    {
      events.emit('staging-failed', { upgrade: upgradeOf(target), text, data: { blocksLeft: left, reason: job?.lastError ?? 'not installed' } });
    }
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
    async settle(halted) {
      settled.add(halted.name);
      if (job !== undefined && job.plan.name === halted.name) {
        if (!job.staged) logger.info({ upgrade: halted.name }, 'the node halted while its binary was still being staged; waiting for that download');
        // A staging that keeps failing waits for its next attempt; the halt tries now instead.
        job.pause.abort();
        await job.done;
      }
    },
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
      job?.abort.abort();
      offBus();
      await loop;
      await job?.done;
      client.close();
    },
  };
}
