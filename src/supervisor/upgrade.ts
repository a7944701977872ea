/**
 * The upgrade sequence, run once the node has stopped:
 *   delay → backup → custom pre-upgrade → binary installed (or downloaded and verified)
 *   → `<new binary> pre-upgrade` (the plan recorded meanwhile) → `current` switched.
 * The switch is the last step: any failure before it leaves `current` on the old binary, and starting
 * chainvisor again redoes the sequence (start-up reconciliation). cosmovisor switches before
 * pre-upgrade, so a failed pre-upgrade left the node on a half-prepared new binary.
 */
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { backupBeforeUpgrade } from '../backup/index.js';
import type { Config } from '../config/index.js';
import type { DownloadUpgradeOptions } from '../download/index.js';
import { ChainvisorError, ExitCode } from '../errors/index.js';
import type { EventBus } from '../events/index.js';
import { type Layout, acceptNodeBinary, binaryPath, isFsError, layoutFsError, planRecordPath, prepareSwitch, readCurrentDir, type StagedFile, stageFile, statBinary, writeFileAtomic } from '../layout/index.js';
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

export interface ApplyOptions {
  /** Wait DAEMON_RESTART_DELAY first (not at start-up). */
  delay: boolean;
  /**
   * Resolves once the node is down, when the caller is still stopping it: the binary is looked at and
   * its plan record begun meanwhile, and nothing else runs before it resolves.
   */
  nodeStopped?: Promise<unknown>;
}

/** Applies `plan`, whose binary lives in `dir` (`upgrades/<name>`), once the node is stopped. */
export async function applyUpgrade(plan: Plan, dir: string, ctx: UpgradeContext, options: ApplyOptions): Promise<void> {
  const { config, layout, logger, signal } = ctx;
  const binary = binaryPath(layout, dir);
  logger.info({ upgrade: plan.name, height: plan.height, dir }, 'applying upgrade');

  // The plan record (upgrades/<name>/upgrade-info.json) is written, with its fsyncs, in the shadow of the
  // steps that follow: it is read only through `current`, so it means nothing until the switch, and it is
  // awaited (and any failure surfaced) just before the switch. Its data is written at once, beside the
  // look at the binary, into a temp file that becomes the record only if the binary is in place
  // (otherwise the temp file is removed and the record written after the download).
  const recordFile = planRecordPath(layout, dir);
  const staged = stageFile(recordFile, serializePlan(plan), 0o644);
  staged.catch(() => undefined);
  let record: Promise<void> | undefined;
  const startRecord = (ahead?: Promise<StagedFile>) => {
    record ??= recordPlan(recordFile, plan, ahead);
    record.catch(() => undefined);
  };
  // Looked at while the node stops (each step here is on the path of every switch).
  const looked = statBinary(binary, ExitCode.config).then((stats) => {
    if (stats?.isFile()) startRecord(staged);
    else void staged.then((file) => file.abandon()).catch(() => undefined);
    return stats;
  });
  looked.catch(() => void staged.then((file) => file.abandon()).catch(() => undefined));
  let stats: Stats | undefined;
  try {
    stats = await looked;
  } finally {
    await options.nodeStopped;
  }
  const installed = stats?.isFile() === true;
  // Fail before an hour-long backup when nothing can provide the binary.
  if (!config.allowDownloadBinaries && config.customPreUpgrade === '' && !installed) {
    throw await missingBinary(plan, binary, ctx);
  }
  // Any step that takes time may change what is at the path: it is looked at again after one.
  let stale = false;
  if (options.delay && config.restartDelay > 0) {
    logger.info({ ms: config.restartDelay }, 'waiting DAEMON_RESTART_DELAY');
    await sleep(config.restartDelay, undefined, { signal });
    stale = true;
  }
  if (!config.unsafeSkipBackup) {
    await backupBeforeUpgrade({ upgrade: { name: plan.name, height: plan.height }, config, layout, logger, signal, ...(ctx.events ? { events: ctx.events } : {}) });
    stale = true;
  }
  signal.throwIfAborted();

  if (config.customPreUpgrade !== '') {
    await runCustomPreUpgrade({ script: path.join(layout.root, config.customPreUpgrade), plan, cwd: layout.home, logger });
    signal.throwIfAborted();
    stale = true;
  }

  if (stale) stats = await statBinary(binary, ExitCode.config);
  if (stats?.isFile() !== true) {
    if (!config.allowDownloadBinaries) throw await missingBinary(plan, binary, ctx);
    // Loaded on demand: the HTTP and archive stack stays off the start-up path of nodes that never download.
    const download = ctx.download ?? (await import('../download/index.js')).downloadUpgradeBinary;
    await download({ plan, config, layout, dir, logger, signal, ...(ctx.events ? { events: ctx.events } : {}) });
    signal.throwIfAborted();
    stats = await statBinary(binary, ExitCode.upgradeFailed);
  }
  startRecord();
  // The new `current` link is made beside the old one while pre-upgrade runs; renamed over it only if all went well.
  const switching = prepareSwitch(layout, dir);
  switching.catch(() => undefined);
  const prepare = async (found: Stats | undefined) => {
    if (!acceptNodeBinary(binary, found, { logger, when: `switching to upgrade "${plan.name}"`, exitCode: ExitCode.upgradeFailed })) {
      throw new ChainvisorError('CHAINVISOR_UPGRADE_BINARY_MISSING', `${binary} is not a regular file; current was not switched`, {
        hint: `put the node binary of upgrade "${plan.name}" there (chainvisor add-upgrade ${plan.name} <path> --force), then start chainvisor again — the upgrade is applied at start-up`,
        exitCode: ExitCode.upgradeFailed,
      });
    }
    await makeExecutable(binary, found as Stats);
    await runPreUpgrade({ binary, maxRetries: config.preUpgradeMaxRetries, logger });
  };
  const [preUpgrade, recorded] = await Promise.allSettled([prepare(stats), record]);
  const [prepared] = await Promise.allSettled([switching]);
  try {
    if (preUpgrade.status === 'rejected') throw preUpgrade.reason;
    if (recorded.status === 'rejected') throw recorded.reason;
    if (prepared.status === 'rejected') throw prepared.reason;
    signal.throwIfAborted();
  } catch (error) {
    if (prepared.status === 'fulfilled') await prepared.value.abandon();
    throw error;
  }
  await prepared.value.commit();
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
async function makeExecutable(binary: string, { mode }: Stats): Promise<void> {
  if ((mode & 0o111) === 0o111) return;
  try {
    await fs.chmod(binary, mode | 0o111);
  } catch (error) {
    throw isFsError(error) ? layoutFsError(binary, 'make executable', error, ExitCode.upgradeFailed) : error;
  }
}

/**
 * The plan kept beside the new binary (`current/upgrade-info.json`). A full disk or a folder in the
 * way fails the upgrade (79) before the switch, naming the file; `current` is not touched.
 */
async function recordPlan(file: string, plan: Plan, ahead?: Promise<StagedFile>): Promise<void> {
  try {
    if (ahead) await (await ahead).commit();
    else await writeFileAtomic(file, serializePlan(plan), 0o644);
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
