/**
 * Is this plan an upgrade chainvisor must apply now?
 * - not when its height is in the node's --unsafe-skip-upgrades (the node skips it too);
 * - not when `current` already is its folder or records the same plan name;
 * - not when it is older than the plan `current` records: a leftover file of an earlier upgrade
 *   (the node only ever halts for a plan at or above the height of the last one applied).
 */
import type { Plan } from '../chain/index.js';

/** What `current` runs from, as the home reads it (home/layout's `Current`): its folder and the plan it records. */
export interface Running {
  dir: string;
  plan: Plan | undefined;
}

/** A plan's target as the home names it (home/layout's `UpgradeTarget`): only its folder is judged here. */
export interface Target {
  dir: string;
}

export type Verdict<T extends Target> = { due: true; target: T } | { due: false; why: string; skipped?: true };

export interface DueOptions<T extends Target> {
  /** The plan's target, named with the home's recase rule (home/layout's planTarget); throws on a name that cannot be a folder. */
  target: (plan: Plan) => T;
  skipHeights: ReadonlySet<number>;
}

export function upgradeDue<T extends Target>(plan: Plan, current: Running, options: DueOptions<T>): Verdict<T> {
  if (options.skipHeights.has(plan.height)) {
    return { due: false, skipped: true, why: `height ${plan.height} is listed in --unsafe-skip-upgrades` };
  }
  const target = options.target(plan);
  if (current.dir === target.dir || current.plan?.name === plan.name) {
    return { due: false, why: `upgrade "${plan.name}" is the one running (${current.dir})` };
  }
  if (current.plan !== undefined && plan.height < current.plan.height) {
    return {
      due: false,
      why: `upgrade "${plan.name}" at height ${plan.height} is older than the running "${current.plan.name}" at ${current.plan.height}`,
    };
  }
  return { due: true, target };
}
