/**
 * Step 6 of the upgrade (compose.ts), switch: the link made ahead renamed over `current`, the folder
 * flushed; the record's folder is flushed beside it (a crash in between can lose the record's name,
 * never `current`'s: the next start then sees `current` on this folder, which is all the record is
 * for). The last step before the restart: any failure before it leaves `current` on the old binary.
 */
import { planRecordPath, type UpgradeTarget } from '../../home/layout/index.js';
import type { Ahead, UpgradeContext } from './context.js';

export async function switchCurrent(target: UpgradeTarget, ahead: Ahead, flushRecord: () => Promise<void>, ctx: UpgradeContext): Promise<void> {
  const link = await ahead.link;
  const [switched, flushed] = await Promise.allSettled([link.commit(), flushRecord()]);
  if (switched.status === 'rejected') throw switched.reason;
  if (flushed.status === 'rejected') {
    // `current` is switched: the upgrade goes on. Only a crash before the disk settles could lose the
    // record's name, and the next start then still sees `current` on this folder.
    ctx.logger.warn(
      { err: flushed.reason, file: planRecordPath(ctx.layout, target.dir) },
      'the folder of the plan record could not be flushed to disk; the upgrade is applied — check the disk (dmesg, df)',
    );
  }
}
