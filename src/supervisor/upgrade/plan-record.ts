/**
 * The plan kept beside the new binary (`upgrades/<name>/upgrade-info.json`, read through `current`):
 * committed once the binary is known to be in place (4-binary.ts), awaited just before the switch
 * (5-pre-upgrade.ts), its folder flushed beside the switch (6-switch.ts).
 */
import { type Plan, serializePlan } from '../../chain/plan/index.js';
import { type TempFile, writeFileAtomic } from '../../home/layout/index.js';
import { ChainvisorError, isFsError } from '../../shared/errors/index.js';

/**
 * The plan record being committed, held in an object so that no `await` of a step waits for it:
 * `committed` resolves, once the record is whole at its path, to the flush of its folder.
 */
export interface PlanRecord {
  committed: Promise<() => Promise<void>>;
}

/**
 * The plan kept beside the new binary (`current/upgrade-info.json`), whole at its path when this
 * resolves; the returned function flushes its folder. A full disk or a folder in the way fails the
 * upgrade (79) before the switch, naming the file; `current` is not touched.
 */
export async function recordPlan(file: string, plan: Plan, ahead?: Promise<TempFile>): Promise<() => Promise<void>> {
  try {
    // Written ahead unless that failed (the folder was not there yet): then written now.
    const staged = await ahead?.catch(() => undefined);
    if (staged) return (await staged.place()).flush;
    await writeFileAtomic(file, serializePlan(plan), 0o644);
    return async () => undefined;
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
