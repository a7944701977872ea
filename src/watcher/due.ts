/**
 * Is this plan an upgrade chainvisor must apply now?
 * - not when its height is in the node's --unsafe-skip-upgrades (the node skips it too);
 * - not when `current` already is its folder or records the same plan name;
 * - not when it is older than the plan `current` records: a leftover file of an earlier upgrade
 *   (the node only ever halts for a plan at or above the height of the last one applied).
 */
import type { Plan } from '../chain/plan/index.js';
import { type Current, type Layout, planTarget, type UpgradeTarget } from '../home/layout/index.js';

export type Verdict = { due: true; target: UpgradeTarget } | { due: false; why: string; skipped?: true };

export interface DueOptions {
  /** Whose recase rule names the plan's folder. */
  layout: Layout;
  skipHeights: ReadonlySet<number>;
}

export function upgradeDue(plan: Plan, current: Current, options: DueOptions): Verdict {
  if (options.skipHeights.has(plan.height)) {
    return { due: false, skipped: true, why: `height ${plan.height} is listed in --unsafe-skip-upgrades` };
  }
  const target = planTarget(options.layout, plan);
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
