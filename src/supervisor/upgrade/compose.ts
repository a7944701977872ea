/**
 * One upgrade, in the order its steps run; each step is a file of this folder named by its verb.
 * The switch is the last step before the start: any failure before it leaves `current` on the old
 * binary, and starting chainvisor again redoes the sequence. The walk, file by file, and why this
 * order: docs/design/upgrade.md. The sequence emits upgrade-detected, then upgrade-applied or
 * upgrade-failed, each once, here.
 */
import type { Staging } from '../../download/staging/index.js';
import { switchCurrent, type UpgradeTarget } from '../../home/layout/index.js';
import { type Detected, logEvents } from '../../shared/event-log.js';
import { createEventBus, type EventBus } from '../../shared/events/index.js';
import type { PlanWatcher } from '../../watcher/plan-watch.js';
import type { Launched } from '../launch.js';
import { backUp } from './back-up.js';
import type { UpgradeContext } from './context.js';
import { dequeueManual } from './dequeue-manual.js';
import { obtainBinary, requireBinarySource } from './obtain-binary.js';
import { recordPlan } from './record-plan.js';
import { runCustomPreUpgrade } from './run-custom-pre-upgrade.js';
import { runPreUpgrade } from './run-pre-upgrade.js';
import { startNode, type StartOptions } from './start-node.js';
import { waitDelay } from './wait-delay.js';

export interface UpgradeOptions {
  ctx: UpgradeContext;
  /** Wait DAEMON_RESTART_DELAY first (not at start-up). */
  delay: boolean;
  /** Stops the node when it is still running; resolves once it is down. */
  stopNode?: () => Promise<unknown>;
  /** How the upgrade was detected, for the upgrade-detected log line; none for a rehearsal's sequence. */
  detected?: Detected;
  /** When the node halted: an upgrade-detected event's time, for the applied event's duration. */
  detectedAt?: number;
  /** The plan last read from the chain: upgrade-info.json is cross-checked with it. */
  planWatcher?: PlanWatcher;
  /** A download of this plan's binary begun before the halt is the one the sequence needs: it waits for it. */
  staging?: Staging;
  /** Starts the new node and follows the network; without it the sequence ends at the switch (start-up, a rehearsal). */
  start?: StartOptions;
  /** True when a failure is chainvisor's stop, not the upgrade's (no upgrade-failed event then). */
  stopping?: () => boolean;
}

/** Resolves to the node started after the switch: undefined when there is none (no `start`, chainvisor stopped, DAEMON_RESTART_AFTER_UPGRADE=false). */
export async function runUpgrade(target: UpgradeTarget, options: UpgradeOptions): Promise<Launched | undefined> {
  const { ctx, planWatcher, staging } = options;
  const { plan, dir } = target;
  const events = ctx.events ?? loggedBus(ctx);
  const upgrade = { name: plan.name, height: plan.height };
  const detectedAt = options.detectedAt ?? Date.now();
  events.emit('upgrade-detected', {
    upgrade,
    text: `upgrade "${plan.name}" needed at height ${plan.height}`,
    ...(options.detected ? { data: { ...options.detected } } : {}),
  });
  try {
    await options.stopNode?.();
    planWatcher?.crossCheck(plan);
    await staging?.settle(plan);
    ctx.logger.info({ upgrade: plan.name, height: plan.height, dir }, 'applying upgrade');
    await waitDelay(ctx, options.delay);
    await requireBinarySource(target, ctx);
    await backUp(target, ctx);
    await runCustomPreUpgrade(target, ctx);
    await obtainBinary(target, ctx);
    await runPreUpgrade(target, ctx);
    await recordPlan(target, ctx);
    await switchCurrent(ctx.layout, dir);
  } catch (error) {
    if (options.stopping?.() !== true) {
      const { code, hint } = error as { code?: unknown; hint?: unknown };
      // A step's message may name the upgrade already (`upgrade "v9" at height 300 needs …`): said once.
      const named = `upgrade "${plan.name}" at height ${plan.height}`;
      const message = error instanceof Error ? error.message : String(error);
      const text = `${named} failed: ${message.startsWith(`${named} `) ? message.slice(named.length + 1) : message}`;
      events.emit('upgrade-failed', { upgrade, text, data: { code, hint } });
    }
    throw error;
  }
  const ms = Date.now() - detectedAt;
  events.emit('upgrade-applied', { upgrade, text: `upgrade "${plan.name}" at height ${plan.height} applied: current -> ${dir}`, data: { dir, ms } });
  if (options.start === undefined) return undefined;
  await dequeueManual(options.start);
  const launched = await startNode({ dir, plan }, options.start, ctx);
  if (launched !== undefined) options.start.follows.start();
  return launched;
}

/** A private bus for a caller with none (a rehearsal): the switch still reaches the log; a failure the caller reports itself. */
function loggedBus(ctx: UpgradeContext): EventBus {
  const events = createEventBus();
  logEvents(events, ctx.logger, { failures: false });
  return events;
}
