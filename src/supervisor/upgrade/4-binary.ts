/**
 * Step 4 of the upgrade (compose.ts), binary: the new binary in place, installed by the operator or
 * downloaded and verified (src/download: the same path as staging before the halt), and the plan
 * record committed once it is there.
 *
 * Its first look runs before the backup (`recordIfInPlace`): when nothing can provide the binary, the
 * upgrade fails at once, not after an hour-long backup; when the binary is in place, its plan record is
 * committed in the shadow of the steps between.
 */
import { planRecordPath, readCurrentDir, statBinary, type UpgradeTarget } from '../../home/layout/index.js';
import { ChainvisorError, ExitCode } from '../../shared/errors/index.js';
import { type Ahead, freshen, type Look, type UpgradeContext } from './context.js';
import { type PlanRecord, recordPlan } from './plan-record.js';

/**
 * The binary looked at again if need be; with it in place, the plan record (upgrades/<name>/upgrade-info.json)
 * is committed, with its flushes, in the shadow of the steps that follow: it is read only through
 * `current`, so it means nothing until the switch, and it is awaited (and any failure surfaced) just
 * before the switch. Fails at once, before an hour-long backup, when nothing can provide the binary.
 */
export async function recordIfInPlace(target: UpgradeTarget, ahead: Ahead, look: Look, ctx: UpgradeContext): Promise<PlanRecord | undefined> {
  const { config, layout } = ctx;
  await freshen(look, target.binary);
  const record = look.stats?.isFile() ? { committed: recordPlan(planRecordPath(layout, target.dir), target.plan, ahead.record) } : undefined;
  record?.committed.catch(() => undefined);
  // No binary yet: its folder is left as it was (a download must find an empty leftover folder empty).
  if (record === undefined)
    await ahead.record.then(
      (file) => file.abandon(),
      () => undefined,
    );
  if (!config.allowDownloadBinaries && config.customPreUpgrade === '' && look.stats?.isFile() !== true) {
    throw await missingBinary(target, ctx);
  }
  return record;
}

/** binary: installed, or downloaded and verified (src/download); returns the plan record, begun now if not yet. */
export async function binary(target: UpgradeTarget, look: Look, record: PlanRecord | undefined, ctx: UpgradeContext): Promise<PlanRecord> {
  const { config, layout, logger, signal } = ctx;
  await freshen(look, target.binary);
  if (look.stats?.isFile() !== true) {
    if (!config.allowDownloadBinaries) throw await missingBinary(target, ctx);
    // Loaded on demand: the HTTP and archive stack stays off the start-up path of nodes that never download.
    const download = ctx.download ?? (await import('../../download/index.js')).downloadUpgradeBinary;
    await download({ target, config, layout, logger, signal, ...(ctx.events ? { events: ctx.events } : {}) });
    signal.throwIfAborted();
    look.stats = await statBinary(target.binary, ExitCode.upgradeFailed);
  }
  return record ?? { committed: recordPlan(planRecordPath(layout, target.dir), target.plan) };
}

async function missingBinary({ plan, binary }: UpgradeTarget, ctx: UpgradeContext): Promise<ChainvisorError> {
  const current = await readCurrentDir(ctx.layout);
  return new ChainvisorError(
    'CHAINVISOR_UPGRADE_BINARY_MISSING',
    `upgrade "${plan.name}" at height ${plan.height} needs ${binary}, which is not installed, and automatic download is off; current still points at ${current}`,
    {
      hint: `install it with 'chainvisor add-upgrade ${plan.name} <path-to-new-binary>' (or set DAEMON_ALLOW_DOWNLOAD_BINARIES=true), then start chainvisor again — the upgrade is applied at start-up`,
    },
  );
}
