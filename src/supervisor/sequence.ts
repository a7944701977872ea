/**
 * The upgrade sequence, run once the node has stopped. Its steps are numbered here and only here;
 * elsewhere they are named:
 *   1. delay        DAEMON_RESTART_DELAY (not at start-up)
 *   2. backup       `data/` kept (src/home/backup), unless UNSAFE_SKIP_BACKUP
 *   3. custom pre-upgrade   COSMOVISOR_CUSTOM_PREUPGRADE (pre-upgrade.ts)
 *   4. binary       installed, or downloaded and verified (src/download, plan-binary.ts)
 *   5. pre-upgrade  `<new binary> pre-upgrade` (pre-upgrade.ts); the plan recorded meanwhile
 *   6. switch       `current` moved to the new folder in one rename
 * The switch is the last step: any failure before it leaves `current` on the old binary, and starting
 * chainvisor again redoes the sequence (start-up reconciliation). cosmovisor switches before
 * pre-upgrade, so a failed pre-upgrade left the node on a half-prepared new binary.
 *
 * What needs no stopped node is begun while the node is still stopping (beginAhead): the look at the
 * binary, the record's data in a temp file, the new link beside `current`. With the binary in place,
 * what follows the node's exit is then pre-upgrade and one rename (bench:switch measures it).
 */
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import type { Config } from '../config/index.js';
import type { Downloader } from '../download/index.js';
import type { PlanWatcher } from '../download/staging/index.js';
import { backupBeforeUpgrade } from '../home/backup/index.js';
import {
  acceptNodeBinary,
  type Current,
  type Layout,
  layoutFsError,
  planRecordPath,
  type PreparedSwitch,
  prepareSwitch,
  readCurrentDir,
  statBinary,
  type TempFile,
  type UpgradeTarget,
  writeFileAtomic,
  writeTempFile,
} from '../home/layout/index.js';
import type { NodeTracker } from '../home/lock/index.js';
import { ChainvisorError, ExitCode, isFsError } from '../shared/errors/index.js';
import type { EventBus } from '../shared/events/index.js';
import type { Logger } from '../shared/log.js';
import type { Standby } from '../shared/proc/index.js';
import { type Plan, serializePlan } from '../watcher/plan/index.js';
import { runCustomPreUpgrade, runPreUpgrade } from './pre-upgrade.js';

export interface UpgradeContext {
  config: Config;
  layout: Layout;
  logger: Logger;
  /** Aborted when chainvisor is asked to stop; checked between steps. */
  signal: AbortSignal;
  download?: Downloader;
  /** Where progress and stage events go (backup, download); optional so one-shot callers need none. */
  events?: EventBus;
  /** Arguments after `<new binary> pre-upgrade`: a rehearsal's `--home <scratch>`; none on the live node. */
  preUpgradeArgs?: readonly string[];
}

export interface ApplyOptions {
  /** Wait DAEMON_RESTART_DELAY first (not at start-up). */
  delay: boolean;
  /**
   * Resolves once the node is down, when the caller is still stopping it: the binary is looked at and
   * its plan record begun meanwhile, and nothing else runs before it resolves.
   */
  nodeStopped?: Promise<unknown>;
  /** Runs `pre-upgrade` without forking chainvisor when it fits (src/shared/proc/standby.ts). */
  preUpgradeStandby?: Standby;
}

/**
 * What the sequence begins at once, while the node is still stopping (each trip through the thread pool
 * here would otherwise be on the path of every switch). Nothing of it is seen before the switch: the
 * record's data sits in a temp file beside the record, the new link beside `current`.
 */
interface Ahead {
  /** What is at the binary's path. */
  looked: Promise<Stats | undefined>;
  /** The plan record's data, on disk in a temp file: committed once the binary is known to be in place. */
  record: Promise<TempFile>;
  /** The new `current` link: committed (renamed over `current`) as the last step. */
  link: Promise<PreparedSwitch>;
}

function beginAhead({ plan, dir, binary }: UpgradeTarget, layout: Layout): Ahead {
  const quiet = <T>(promise: Promise<T>): Promise<T> => {
    promise.catch(() => undefined);
    return promise;
  };
  return {
    looked: quiet(statBinary(binary, ExitCode.config)),
    record: quiet(writeTempFile(planRecordPath(layout, dir), serializePlan(plan), 0o644)),
    link: quiet(prepareSwitch(layout, dir)),
  };
}

/** Removes what was begun and not committed (a committed part is left as it is). */
async function dropAhead(ahead: Ahead): Promise<void> {
  await Promise.allSettled([ahead.record.then((file) => file.abandon()), ahead.link.then((link) => link.abandon())]);
}

/** What an applied upgrade hands the next launch. */
export interface Switched {
  /** `current` as the sequence switched it, its binary checked (and warned about once). */
  current: Current;
  /** The next node's record, begun while the sequence ran (with DAEMON_RESTART_AFTER_UPGRADE and a tracker). */
  record: { binary: string; written: Promise<void> } | undefined;
}

export interface RunOptions extends ApplyOptions {
  ctx: UpgradeContext & { events: EventBus };
  /** When the node halted: an upgrade-detected event's time, for the applied event's duration. */
  detectedAt: number;
  /** A download of this plan's binary begun before the halt is the one the sequence needs: it waits for it. */
  planWatcher?: PlanWatcher;
  /** Records the next node: begun beside the sequence, once the old node is down. */
  tracker?: NodeTracker;
  /** True when a failure is chainvisor's stop, not the upgrade's (no upgrade-failed event then). */
  stopping: () => boolean;
}

/**
 * The upgrade sequence with its events: detected → applied (with its duration) or failed. Returns what
 * the next launch needs; on a failure the next node's record it began is removed.
 */
export async function runUpgrade(target: UpgradeTarget, options: RunOptions): Promise<Switched> {
  const { ctx, tracker, planWatcher } = options;
  const { plan, dir, binary } = target;
  const upgrade = { name: plan.name, height: plan.height };
  ctx.events.emit('upgrade-detected', { upgrade, text: `upgrade "${plan.name}" needed at height ${plan.height}` });
  // The next node's record, written beside the sequence rather than before the spawn (a file write is
  // a few trips through the thread pool, on the path of every switch). Once the old node is down: its
  // exit leaves the newer record in place.
  const record = tracker && {
    binary,
    written: Promise.resolve(options.nodeStopped)
      .catch(() => undefined)
      .then(() => tracker.beforeSpawn(binary)),
  };
  try {
    planWatcher?.crossCheck(plan);
    await planWatcher?.settle(plan);
    await applyUpgrade(target, ctx, options);
  } catch (error) {
    if (record) {
      await record.written.catch(() => undefined);
      await tracker.notSpawned();
    }
    if (!options.stopping()) {
      const code = (error as { code?: unknown }).code;
      const text = `upgrade "${plan.name}" at height ${plan.height} failed: ${error instanceof Error ? error.message : String(error)}`;
      ctx.events.emit('upgrade-failed', { upgrade, text, data: { code } });
      ctx.logger.error({ event: 'upgrade-failed', upgrade: plan.name, height: plan.height, code }, text);
    }
    throw error;
  }
  const ms = Date.now() - options.detectedAt;
  ctx.events.emit('upgrade-applied', { upgrade, text: `upgrade "${plan.name}" at height ${plan.height} applied: current -> ${dir}`, data: { dir, ms } });
  return { current: { dir, plan }, record };
}

/** Applies the target's plan, whose binary lives in its `dir` (`upgrades/<name>`), once the node is stopped. */
export async function applyUpgrade(target: UpgradeTarget, ctx: UpgradeContext, options: ApplyOptions): Promise<void> {
  const { layout, logger } = ctx;
  const { plan, dir } = target;
  logger.info({ upgrade: plan.name, height: plan.height, dir }, 'applying upgrade');
  const ahead = beginAhead(target, layout);
  try {
    await sequence(target, ahead, ctx, options);
  } finally {
    await dropAhead(ahead);
  }
  logger.info({ event: 'upgrade-applied', upgrade: plan.name, height: plan.height, current: dir }, 'upgrade applied: current now points at the new binary');
}

async function sequence(target: UpgradeTarget, ahead: Ahead, ctx: UpgradeContext, options: ApplyOptions): Promise<void> {
  const { config, layout, logger, signal } = ctx;
  const { plan, dir, binary } = target;
  let stats: Stats | undefined;
  let lookedAt: number;
  try {
    stats = await ahead.looked;
    lookedAt = Date.now();
  } finally {
    await options.nodeStopped;
  }
  // What is at the path is looked at again after any step that may change it: the stop itself when it
  // found no binary (an operator may be installing it now) or took long enough for anything to change
  // (a grace period), the restart delay, the backup, the custom pre-upgrade script.
  let stale = stats?.isFile() !== true || Date.now() - lookedAt > freshLookMs;
  if (options.delay && config.restartDelay > 0) {
    logger.info({ ms: config.restartDelay }, 'waiting DAEMON_RESTART_DELAY');
    await sleep(config.restartDelay, undefined, { signal });
    stale = true;
  }
  if (stale) stats = await statBinary(binary, ExitCode.config);
  stale = false;
  // The plan record (upgrades/<name>/upgrade-info.json) is committed, with its flushes, in the shadow of
  // the steps that follow, from the moment the binary is in place: it is read only through `current`, so
  // it means nothing until the switch, and it is awaited (and any failure surfaced) just before the switch.
  let record = stats?.isFile() ? recordPlan(planRecordPath(layout, dir), plan, ahead.record) : undefined;
  record?.catch(() => undefined);
  // No binary yet: its folder is left as it was (a download must find an empty leftover folder empty).
  if (record === undefined)
    await ahead.record.then(
      (file) => file.abandon(),
      () => undefined,
    );
  // Fail before an hour-long backup when nothing can provide the binary.
  if (!config.allowDownloadBinaries && config.customPreUpgrade === '' && stats?.isFile() !== true) {
    throw await missingBinary(plan, binary, ctx);
  }
  if (!config.unsafeSkipBackup) {
    await backupBeforeUpgrade({
      upgrade: { name: plan.name, height: plan.height },
      config,
      layout,
      logger,
      signal,
      ...(ctx.events ? { events: ctx.events } : {}),
    });
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
    await download({ target, config, layout, logger, signal, ...(ctx.events ? { events: ctx.events } : {}) });
    signal.throwIfAborted();
    stats = await statBinary(binary, ExitCode.upgradeFailed);
  }
  record ??= recordPlan(planRecordPath(layout, dir), plan);
  const prepare = async (found: Stats | undefined) => {
    if (!acceptNodeBinary(binary, found, { logger, when: `switching to upgrade "${plan.name}"`, exitCode: ExitCode.upgradeFailed })) {
      throw new ChainvisorError('CHAINVISOR_UPGRADE_BINARY_MISSING', `${binary} is not a regular file; current was not switched`, {
        hint: `put the node binary of upgrade "${plan.name}" there (chainvisor add-upgrade ${plan.name} <path> --force), then start chainvisor again — the upgrade is applied at start-up`,
      });
    }
    await makeExecutable(binary, found as Stats);
    await runPreUpgrade({ binary, maxRetries: config.preUpgradeMaxRetries, logger, standby: options.preUpgradeStandby, args: ctx.preUpgradeArgs ?? [] });
  };
  const [preUpgrade, recorded] = await Promise.allSettled([prepare(stats), record]);
  if (preUpgrade.status === 'rejected') throw preUpgrade.reason;
  if (recorded.status === 'rejected') throw recorded.reason;
  signal.throwIfAborted();
  // The switch: the link made ahead renamed over `current`, the folder flushed; the record's folder is
  // flushed beside it (a crash in between can lose the record's name, never `current`'s: the next start
  // then sees `current` on this folder, which is all the record is for).
  const link = await ahead.link;
  const [switched, flushed] = await Promise.allSettled([link.commit(), recorded.value()]);
  if (switched.status === 'rejected') throw switched.reason;
  if (flushed.status === 'rejected') {
    // `current` is switched: the upgrade goes on. Only a crash before the disk settles could lose the
    // record's name, and the next start then still sees `current` on this folder.
    logger.warn(
      { err: flushed.reason, file: planRecordPath(layout, dir) },
      'the folder of the plan record could not be flushed to disk; the upgrade is applied — check the disk (dmesg, df)',
    );
  }
}

/**
 * How old the look at the binary, taken while the node stopped, may be when the sequence goes on: the
 * stop of a staged upgrade takes about a millisecond; one that took longer (a grace period) is followed
 * by a fresh look, so that what runs is what is there after the stop.
 */
const freshLookMs = 100;

async function missingBinary(plan: Plan, binary: string, ctx: UpgradeContext): Promise<ChainvisorError> {
  const current = await readCurrentDir(ctx.layout);
  return new ChainvisorError(
    'CHAINVISOR_UPGRADE_BINARY_MISSING',
    `upgrade "${plan.name}" at height ${plan.height} needs ${binary}, which is not installed, and automatic download is off; current still points at ${current}`,
    {
      hint: `install it with 'chainvisor add-upgrade ${plan.name} <path-to-new-binary>' (or set DAEMON_ALLOW_DOWNLOAD_BINARIES=true), then start chainvisor again — the upgrade is applied at start-up`,
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
 * The plan kept beside the new binary (`current/upgrade-info.json`), whole at its path when this
 * resolves; the returned function flushes its folder. A full disk or a folder in the way fails the
 * upgrade (79) before the switch, naming the file; `current` is not touched.
 */
async function recordPlan(file: string, plan: Plan, ahead?: Promise<TempFile>): Promise<() => Promise<void>> {
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
