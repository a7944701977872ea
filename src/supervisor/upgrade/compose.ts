/**
 * The upgrade, in order: the composer of the steps, numbered here and named so in this folder's
 * listing. Once the upgrade is detected, the node is stopped (unless it exited), and what needs no
 * stopped node is begun meanwhile (context.ts: the look at the binary, the plan record's data in a temp
 * file, the new link beside `current`); a download of this plan's binary begun before the halt
 * (src/download/staging) is waited for. Then, once the node is down:
 *   1. delay               DAEMON_RESTART_DELAY (not at start-up)                       1-delay.ts
 *   2. backup              `data/` kept (src/home/backup), unless UNSAFE_SKIP_BACKUP     2-backup.ts
 *   3. custom pre-upgrade  COSMOVISOR_CUSTOM_PREUPGRADE                                 3-custom-pre-upgrade.ts
 *   4. binary              installed, or downloaded and verified (src/download)          4-binary.ts
 *   5. pre-upgrade         `<new binary> pre-upgrade`; the plan recorded meanwhile       5-pre-upgrade.ts
 *   6. switch              `current` moved to the new folder in one rename              6-switch.ts
 *   7. restart             the new node started (the run loop, through ../launch.ts)    7-restart.ts
 *   8. follow              the network followed until it commits past the height        8-follow.ts
 * The binary step looks first, right after the delay: an upgrade nothing can provide the binary of
 * fails then, before an hour-long backup, and a binary in place has its plan record committed in the
 * shadow of steps 2–4. The custom pre-upgrade comes before the binary step (it may install it); the
 * node's pre-upgrade after it (it runs the new binary).
 *
 * This function runs steps 1 to 6; 7 and 8 begin the next node's life, which is the run loop's
 * (../supervisor.ts): it restarts with what this returns, then starts the follow. The switch is the last
 * step before the restart: any failure before it leaves `current` on the old binary, and starting
 * chainvisor again redoes the sequence (start-up reconciliation). cosmovisor switches before
 * pre-upgrade, so a failed pre-upgrade left the node on a half-prepared new binary. With the binary in
 * place, what follows the node's exit is pre-upgrade and one rename (bench:switch measures it).
 *
 * The sequence owns the upgrade's lifecycle events: upgrade-detected, then upgrade-applied or
 * upgrade-failed, each emitted once, here; their log lines are a listener of the bus (src/shared/event-log.ts).
 */
import type { UpgradeTarget } from '../../home/layout/index.js';
import type { NodeTracker } from '../../home/lock/index.js';
import { type Detected, logEvents } from '../../shared/event-log.js';
import { createEventBus, type EventBus } from '../../shared/events/index.js';
import type { Standby } from '../../shared/proc/index.js';
import type { PlanWatcher } from '../../watcher/plan-watch.js';
import { restartDelay } from './1-delay.js';
import { backup } from './2-backup.js';
import { customPreUpgrade } from './3-custom-pre-upgrade.js';
import { binary, recordIfInPlace } from './4-binary.js';
import { preUpgrade } from './5-pre-upgrade.js';
import { switchCurrent } from './6-switch.js';
import { nextNodeRecord, type Switched } from './7-restart.js';
import { beginAhead, dropAhead, nodeDown, type UpgradeContext } from './context.js';

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
      await restartDelay(look, ctx, options.delay); // 1
      const recording = await recordIfInPlace(target, ahead, look, ctx); // 4's first look
      await backup(target, look, ctx); // 2
      await customPreUpgrade(target, look, ctx); // 3
      const recorded = await binary(target, look, recording, ctx); // 4
      const flushRecord = await preUpgrade(target, look, recorded, ctx, options.preUpgradeStandby); // 5
      await switchCurrent(target, ahead, flushRecord, ctx); // 6
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

/** A private bus for a caller with none (a rehearsal): the switch still reaches the log; a failure the caller reports itself. */
function loggedBus(ctx: UpgradeContext): EventBus {
  const events = createEventBus();
  logEvents(events, ctx.logger, { failures: false });
  return events;
}
