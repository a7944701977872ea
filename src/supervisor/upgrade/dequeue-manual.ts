/** Step of the upgrade (compose.ts): a manual upgrade, once switched, is taken off its queue (data/upgrade-info.json.batch). */
import type { ManualPlan, ManualUpgrades } from '../../watcher/manual/index.js';

export interface ManualApplied {
  plan: ManualPlan;
  queue: ManualUpgrades;
  /** The follow's first block is the one after the halt height (upgrade/follow.ts). */
  follows?: { manualApplied(): void };
}

export async function dequeueManual({ plan, queue, follows }: ManualApplied): Promise<void> {
  follows?.manualApplied();
  await queue.remove([plan]);
}
