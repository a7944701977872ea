/**
 * The upgrade sequence, run once the node has stopped. Its steps are numbered here and only here;
 * elsewhere they are named (steps.ts holds them):
 *   1. delay        DAEMON_RESTART_DELAY (not at start-up)
 *   2. backup       `data/` kept (src/home/backup), unless UNSAFE_SKIP_BACKUP
 *   3. custom pre-upgrade   COSMOVISOR_CUSTOM_PREUPGRADE (pre-upgrade.ts)
 *   4. binary       installed, or downloaded and verified (src/download, plan-binary.ts)
 *   5. pre-upgrade  `<new binary> pre-upgrade` (pre-upgrade.ts); the plan recorded meanwhile
 *   6. switch       `current` moved to the new folder in one rename
 * The switch is the last step: any failure before it leaves `current` on the old binary, and starting
 * chainvisor again redoes the sequence (start-up reconciliation). cosmovisor switches before
 * pre-upgrade, so a failed pre-upgrade left the node on a half-prepared new binary.
 *
 * What needs no stopped node is begun while the node is still stopping (beginAhead): the look at the
 * binary, the record's data in a temp file, the new link beside `current`. With the binary in place,
 * what follows the node's exit is then pre-upgrade and one rename (bench:switch measures it).
 *
 * The sequence owns the upgrade's lifecycle events: upgrade-detected, then upgrade-applied or
 * upgrade-failed, each emitted once, here; their log lines are a listener of the bus (upgrade-log.ts).
 */
import type { PlanWatcher } from '../download/staging/index.js';
import type { Current, UpgradeTarget } from '../home/layout/index.js';
import type { NodeTracker } from '../home/lock/index.js';
import { createEventBus, type EventBus } from '../shared/events/index.js';
import type { Standby } from '../shared/proc/index.js';
import {
  backup,
  beginAhead,
  binary,
  customPreUpgrade,
  dropAhead,
  nodeDown,
  preUpgrade,
  recordIfInPlace,
  restartDelay,
  switchCurrent,
  type UpgradeContext,
} from './steps.js';
import { type Detected, logUpgradeEvents } from './upgrade-log.js';

export type { UpgradeContext } from './steps.js';

/** What an applied upgrade hands the next launch. */
export interface Switched {
  /** `current` as the sequence switched it, its binary checked (and warned about once). */
  current: Current;
  /** The next node's record, begun while the sequence ran (with DAEMON_RESTART_AFTER_UPGRADE and a tracker). */
  record: { binary: string; written: Promise<void> } | undefined;
}

/** A switch whose node will not be started (chainvisor stops, or a guard refuses it): its node record is removed. */
export async function abandonSwitch(switched: Switched | undefined, tracker: NodeTracker | undefined): Promise<void> {
  if (switched?.record === undefined) return;
  await switched.record.written.catch(() => undefined);
  await tracker?.notSpawned();
}

export interface UpgradeOptions {
  ctx: UpgradeContext;
  /** Wait DAEMON_RESTART_DELAY first (not at start-up). */
  delay: boolean;
  /**
   * Stops the node when it is still running, right after the upgrade is reported detected; resolves once
   * it is down. The binary is looked at and its plan record begun meanwhile, and nothing else runs
   * before it resolves.
   */
  stopNode?: () => Promise<unknown>;
  /** Runs `pre-upgrade` without forking chainvisor when it fits (src/shared/proc/standby.ts). */
  preUpgradeStandby?: Standby;
  /** How the upgrade was detected, for the upgrade-detected log line; none for a rehearsal's sequence. */
  detected?: Detected;
  /** When the node halted: an upgrade-detected event's time, for the applied event's duration. */
  detectedAt?: number;
  /** A download of this plan's binary begun before the halt is the one the sequence needs: it waits for it. */
  planWatcher?: PlanWatcher;
  /** Records the next node: begun beside the sequence, once the old node is down. */
  tracker?: NodeTracker;
  /** True when a failure is chainvisor's stop, not the upgrade's (no upgrade-failed event then). */
  stopping?: () => boolean;
}

/**
 * One upgrade, step by step: detected → the staged download settled → the numbered steps → applied (with
 * its duration) or failed. Returns what the next launch needs; on a failure the next node's record it
 * began is removed.
 */
export async function runUpgrade(target: UpgradeTarget, options: UpgradeOptions): Promise<Switched> {
  const { ctx, planWatcher } = options;
  const { plan, dir } = target;
  const events = ctx.events ?? loggedBus(ctx);
  const upgrade = { name: plan.name, height: plan.height };
  const detectedAt = options.detectedAt ?? Date.now();
  events.emit('upgrade-detected', {
    upgrade,
    text: `upgrade "${plan.name}" needed at height ${plan.height}`,
    ...(options.detected ? { data: { ...options.detected } } : {}),
  });
  const nodeStopped = options.stopNode?.();
  const record = nextNodeRecord(target, options.tracker, nodeStopped);
  try {
    planWatcher?.crossCheck(plan);
    await planWatcher?.settle(plan);
    ctx.logger.info({ upgrade: plan.name, height: plan.height, dir }, 'applying upgrade');
    const ahead = beginAhead(target, ctx.layout);
    try {
      const look = await nodeDown(ahead, nodeStopped);
      await restartDelay(look, ctx, options.delay);
      const recording = await recordIfInPlace(target, ahead, look, ctx);
      await backup(target, look, ctx);
      await customPreUpgrade(target, look, ctx);
      const recorded = await binary(target, look, recording, ctx);
      const flushRecord = await preUpgrade(target, look, recorded, ctx, options.preUpgradeStandby);
      await switchCurrent(target, ahead, flushRecord, ctx);
    } finally {
      await dropAhead(ahead);
    }
  } catch (error) {
    if (record) {
      await record.written.catch(() => undefined);
      await options.tracker?.notSpawned();
    }
    if (options.stopping?.() !== true) {
      const { code, hint } = error as { code?: unknown; hint?: unknown };
      const text = `upgrade "${plan.name}" at height ${plan.height} failed: ${error instanceof Error ? error.message : String(error)}`;
      events.emit('upgrade-failed', { upgrade, text, data: { code, hint } });
    }
    throw error;
  }
  const ms = Date.now() - detectedAt;
  events.emit('upgrade-applied', { upgrade, text: `upgrade "${plan.name}" at height ${plan.height} applied: current -> ${dir}`, data: { dir, ms } });
  return { current: { dir, plan }, record };
}

/**
 * The next node's record, written beside the sequence rather than before the spawn (a file write is
 * a few trips through the thread pool, on the path of every switch). Once the old node is down: its
 * exit leaves the newer record in place.
 */
function nextNodeRecord({ binary }: UpgradeTarget, tracker: NodeTracker | undefined, nodeStopped: Promise<unknown> | undefined): Switched['record'] {
  return (
    tracker && {
      binary,
      written: Promise.resolve(nodeStopped)
        .catch(() => undefined)
        .then(() => tracker.beforeSpawn(binary)),
    }
  );
}

/** A private bus for a caller with none (a rehearsal): the switch still reaches the log; a failure the caller reports itself. */
function loggedBus(ctx: UpgradeContext): EventBus {
  const events = createEventBus();
  logUpgradeEvents(events, ctx.logger, { failures: false });
  return events;
}
