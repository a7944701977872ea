/**
 * The upgrade sequence, run once the node has stopped:
 *   delay → backup → custom pre-upgrade → binary installed (or downloaded and verified)
 *   → `<new binary> pre-upgrade` (the plan recorded meanwhile) → `current` switched.
 * The switch is the last step: any failure before it leaves `current` on the old binary, and starting
 * chainvisor again redoes the sequence (start-up reconciliation). cosmovisor switches before
 * pre-upgrade, so a failed pre-upgrade left the node on a half-prepared new binary.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { backupBeforeUpgrade } from '../backup/index.js';
import type { Config } from '../config/index.js';
import type { DownloadUpgradeOptions } from '../download/index.js';
import { ChainvisorError, ExitCode } from '../errors/index.js';
import type { EventBus } from '../events/index.js';
import { type Layout, binaryPath, checkNodeBinary, isFile, isFsError, layoutFsError, planRecordPath, readCurrentDir, switchCurrent, writeFileAtomic } from '../layout/index.js';
import type { Logger } from '../log/index.js';
import { type Plan, serializePlan } from '../plan/index.js';
import { runCustomPreUpgrade, runPreUpgrade } from './pre-upgrade.js';

export type DownloadFn = (options: DownloadUpgradeOptions) => Promise<{ binary: string }>;

export interface UpgradeContext {
  config: Config;
  layout: Layout;
  logger: Logger;
  /** Aborted when chainvisor is asked to stop; checked between steps. */
  signal: AbortSignal;
  download?: DownloadFn;
  /** Where progress and stage events go (backup, download); optional so one-shot callers need none. */
  events?: EventBus;
}

/** Applies `plan`, whose binary lives in `dir` (`upgrades/<name>`). The node must be stopped. */
export async function applyUpgrade(plan: Plan, dir: string, ctx: UpgradeContext, options: { delay: boolean }): Promise<void> {
  const { config, layout, logger, signal } = ctx;
  const binary = binaryPath(layout, dir);
  logger.info({ upgrade: plan.name, height: plan.height, dir }, 'applying upgrade');

  if (options.delay && config.restartDelay > 0) {
    logger.info({ ms: config.restartDelay }, 'waiting DAEMON_RESTART_DELAY');
    await sleep(config.restartDelay, undefined, { signal });
  }
  // The plan record (upgrades/<name>/upgrade-info.json) is written, with its fsyncs, in the shadow of the
  // steps that follow, from the moment the binary is in place: it is read only through `current`, so it
  // means nothing until the switch, and it is awaited (and any failure surfaced) just before the switch.
  let record: Promise<void> | undefined;
  const startRecord = () => {
    record ??= recordPlan(planRecordPath(layout, dir), plan);
    record.catch(() => undefined);
  };
  const installed = await isFile(binary);
  if (installed) startRecord();
  // Fail before an hour-long backup when nothing can provide the binary.
  if (!config.allowDownloadBinaries && config.customPreUpgrade === '' && !installed) {
    throw await missingBinary(plan, binary, ctx);
  }
  if (!config.unsafeSkipBackup) {
    await backupBeforeUpgrade({ upgrade: { name: plan.name, height: plan.height }, config, layout, logger, signal, ...(ctx.events ? { events: ctx.events } : {}) });
  }
  signal.throwIfAborted();

  if (config.customPreUpgrade !== '') {
    await runCustomPreUpgrade({ script: path.join(layout.root, config.customPreUpgrade), plan, cwd: layout.home, logger });
    signal.throwIfAborted();
  }

  if (!(await isFile(binary))) {
    if (!config.allowDownloadBinaries) throw await missingBinary(plan, binary, ctx);
    // Loaded on demand: the HTTP and archive stack stays off the start-up path of nodes that never download.
    const download = ctx.download ?? (await import('../download/index.js')).downloadUpgradeBinary;
    await download({ plan, config, layout, dir, logger, signal, ...(ctx.events ? { events: ctx.events } : {}) });
    signal.throwIfAborted();
  }
  startRecord();
  const prepare = async () => {
    // Independent checks of one file (the execute bit does not change what checkNodeBinary looks at).
    await Promise.all([makeExecutable(binary), checkNodeBinary(binary, { logger, when: `switching to upgrade "${plan.name}"`, exitCode: ExitCode.upgradeFailed })]);
    await runPreUpgrade({ binary, maxRetries: config.preUpgradeMaxRetries, logger });
  };
  const [preUpgrade, recorded] = await Promise.allSettled([prepare(), record]);
  if (preUpgrade.status === 'rejected') throw preUpgrade.reason;
  if (recorded.status === 'rejected') throw recorded.reason;
  signal.throwIfAborted();

  await switchCurrent(layout, dir);
  logger.info({ event: 'upgrade-applied', upgrade: plan.name, height: plan.height, current: dir }, 'upgrade applied: current now points at the new binary');
}

async function missingBinary(plan: Plan, binary: string, ctx: UpgradeContext): Promise<ChainvisorError> {
  const current = await readCurrentDir(ctx.layout);
  return new ChainvisorError(
    'CHAINVISOR_UPGRADE_BINARY_MISSING',
    `upgrade "${plan.name}" at height ${plan.height} needs ${binary}, which is not installed, and automatic download is off; current still points at ${current}`,
    {
      hint: `install it with 'chainvisor add-upgrade ${plan.name} <path-to-new-binary>' (or set DAEMON_ALLOW_DOWNLOAD_BINARIES=true), then start chainvisor again — the upgrade is applied at start-up`,
      exitCode: ExitCode.upgradeFailed,
    },
  );
}

/** cosmovisor marks the binary executable rather than refusing it; so does chainvisor. */
async function makeExecutable(binary: string): Promise<void> {
  try {
    const { mode } = await fs.stat(binary);
    if ((mode & 0o111) !== 0o111) await fs.chmod(binary, mode | 0o111);
  } catch (error) {
    throw isFsError(error) ? layoutFsError(binary, 'make executable', error, ExitCode.upgradeFailed) : error;
  }
}

/**
 * The plan kept beside the new binary (`current/upgrade-info.json`). A full disk or a folder in the
 * way fails the upgrade (79) before the switch, naming the file; `current` is not touched.
 */
async function recordPlan(file: string, plan: Plan): Promise<void> {
  try {
    await writeFileAtomic(file, serializePlan(plan), 0o644);
  } catch (error) {
    if (!isFsError(error)) throw error;
    throw new ChainvisorError('CHAINVISOR_RECORD_FAILED', `could not record the plan of upgrade "${plan.name}" in ${file}: ${error.message}`, {
      hint:
        error.code === 'ENOSPC' || error.code === 'EDQUOT'
          ? 'free disk space on that filesystem and start chainvisor again; the upgrade is applied at start-up'
          : `make ${file} a writable file (move aside whatever is there) and start chainvisor again; the upgrade is applied at start-up`,
      exitCode: ExitCode.upgradeFailed,
      cause: error,
    });
  }
}
