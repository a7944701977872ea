/**
 * Step of the upgrade (compose.ts): the plan kept beside the new binary (`upgrades/<name>/upgrade-info.json`,
 * read through `current`), written whole before the switch. A full disk or a folder in the way fails the
 * upgrade (79) before the switch, naming the file; `current` is not touched.
 */
import { serializePlan } from '../../chain/index.js';
import { planRecordPath, type UpgradeTarget } from '../../home/layout/index.js';
import { ChainvisorError, isFsError } from '../../shared/errors/index.js';
import { writeFileAtomic } from '../../shared/fswrite/index.js';
import type { UpgradeContext } from './context.js';

export async function recordPlan({ plan, dir }: UpgradeTarget, ctx: UpgradeContext): Promise<void> {
  const file = planRecordPath(ctx.layout, dir);
  try {
    await writeFileAtomic(file, serializePlan(plan), 0o644);
  } catch (error) {
    if (!isFsError(error)) throw error;
    throw new ChainvisorError('CHAINVISOR_RECORD_FAILED', `could not record the plan of upgrade "${plan.name}" in ${file}: ${error.message}`, {
      hint:
        error.code === 'ENOSPC' || error.code === 'EDQUOT'
          ? 'free disk space on that filesystem and start chainvisor again; the upgrade is applied at start-up'
          : `make ${file} a writable file (move aside whatever is there) and start chainvisor again; the upgrade is applied at start-up`,
      cause: error,
    });
  }
}
