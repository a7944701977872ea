/**
 * Did the node's exit end at the queued height H? Status 0 (an orderly halt) while it ran with our halt
 * height; when a height was seen, the height it had reached by the exit (extrapolated from the observed
 * block rate, ./height.ts) must be within a block of H, otherwise it was stopped by someone else.
 */
import type { Logger } from '../../shared/log.js';
import type { ManualPlan } from './file.js';
import { type HeightSample, reachedHeight } from './height.js';

export interface NodeExit {
  code: number | undefined;
  signal: string | undefined;
}

/** What the runner saw of the node's run: the plan it halts for, and the first and last heights read. */
export interface HeightsSeen {
  plan: ManualPlan | undefined;
  first?: HeightSample;
  last?: HeightSample;
}

/**
 * The queued plan when the heights seen show the node's exit 0 was its halt there (no guess, nothing
 * logged): such an exit needs no wait for a stop signal that might explain it instead.
 */
export function confirmedHalt(run: HeightsSeen | undefined, exit: NodeExit, now: number): ManualPlan | undefined {
  if (!run?.plan || run.last === undefined || exit.signal !== undefined || exit.code !== 0) return undefined;
  return reachedHeight(run.first, run.last, now) >= run.plan.height - 1 ? run.plan : undefined;
}

/** The queued plan when the exit is taken as the halt at its height; says why when an exit 0 is not. */
export function judgeExit(run: HeightsSeen | undefined, exit: NodeExit, now: number, logger: Logger): ManualPlan | undefined {
  const plan = run?.plan;
  if (!run || !plan || exit.signal !== undefined || exit.code !== 0) return undefined;
  const { first, last } = run;
  if (last === undefined) {
    logger.warn(
      { upgrade: plan.name, height: plan.height },
      'the node exited 0 with --halt-height=%d before its height could be read; taking it as the halt',
      plan.height,
    );
    return plan;
  }
  const reached = reachedHeight(first, last, now);
  if (reached >= plan.height - 1) return plan;
  logger.warn(
    { upgrade: plan.name, height: plan.height, lastSeen: last.height },
    'the node exited 0 at about height %d, before the manual upgrade height %d: not the halt, not applying',
    reached,
    plan.height,
  );
  return undefined;
}
