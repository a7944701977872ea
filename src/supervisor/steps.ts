/**
 * The steps of the upgrade sequence, by name (sequence.ts numbers them, once, and composes them).
 * What one step hands the next is the look at the binary (`Look`: what is at its path, and whether a
 * step since may have changed it) and the plan record begun once the binary is in place.
 */
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { type Plan, serializePlan } from '../chain/plan/index.js';
import type { Config } from '../config/index.js';
import type { Downloader } from '../download/index.js';
import { backupBeforeUpgrade } from '../home/backup/index.js';
import {
  acceptNodeBinary,
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
import { ChainvisorError, ExitCode, isFsError } from '../shared/errors/index.js';
import type { EventBus } from '../shared/events/index.js';
import type { Logger } from '../shared/log.js';
import type { Standby } from '../shared/proc/index.js';
import { runCustomPreUpgrade, runPreUpgrade } from './pre-upgrade.js';

export interface UpgradeContext {
  config: Config;
  layout: Layout;
  logger: Logger;
  /** Aborted when chainvisor is asked to stop; checked between steps. */
  signal: AbortSignal;
  download?: Downloader;
  /** Where the upgrade's events go (detected, applied, failed; backup and download progress); a private bus, logged, by default. */
  events?: EventBus;
  /** Arguments after `<new binary> pre-upgrade`: a rehearsal's `--home <scratch>`; none on the live node. */
  preUpgradeArgs?: readonly string[];
}

/**
 * What the sequence begins at once, while the node is still stopping (each trip through the thread pool
 * here would otherwise be on the path of every switch). Nothing of it is seen before the switch: the
 * record's data sits in a temp file beside the record, the new link beside `current`.
 */
export interface Ahead {
  /** What is at the binary's path. */
  looked: Promise<Stats | undefined>;
  /** The plan record's data, on disk in a temp file: committed once the binary is known to be in place. */
  record: Promise<TempFile>;
  /** The new `current` link: committed (renamed over `current`) as the last step. */
  link: Promise<PreparedSwitch>;
}

export function beginAhead({ plan, dir, binary }: UpgradeTarget, layout: Layout): Ahead {
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
export async function dropAhead(ahead: Ahead): Promise<void> {
  await Promise.allSettled([ahead.record.then((file) => file.abandon()), ahead.link.then((link) => link.abandon())]);
}

/** The look at the binary: what is at its path, and whether a step since may have changed it. */
export interface Look {
  stats: Stats | undefined;
  stale: boolean;
}

/**
 * The plan record being committed, held in an object so that no `await` of a step waits for it:
 * `committed` resolves, once the record is whole at its path, to the flush of its folder.
 */
export interface PlanRecord {
  committed: Promise<() => Promise<void>>;
}

/**
 * How old the look at the binary, taken while the node stopped, may be when the sequence goes on: the
 * stop of a staged upgrade takes about a millisecond; one that took longer (a grace period) is followed
 * by a fresh look, so that what runs is what is there after the stop.
 */
const freshLookMs = 100;

/** The node down: the look taken meanwhile, stale when it found no binary or the stop took long. */
export async function nodeDown(ahead: Ahead, nodeStopped: Promise<unknown> | undefined): Promise<Look> {
  let stats: Stats | undefined;
  let lookedAt: number;
  try {
    stats = await ahead.looked;
    lookedAt = Date.now();
  } finally {
    await nodeStopped;
  }
  // An operator may be installing the binary now, or anything may have changed during a grace period.
  return { stats, stale: stats?.isFile() !== true || Date.now() - lookedAt > freshLookMs };
}

/** delay: DAEMON_RESTART_DELAY (not at start-up). */
export async function restartDelay(look: Look, ctx: UpgradeContext, delay: boolean): Promise<void> {
  const { config, logger, signal } = ctx;
  if (!delay || config.restartDelay <= 0) return;
  logger.info({ ms: config.restartDelay }, 'waiting DAEMON_RESTART_DELAY');
  await sleep(config.restartDelay, undefined, { signal });
  look.stale = true;
}

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

/** backup: `data/` kept (src/home/backup), unless UNSAFE_SKIP_BACKUP. */
export async function backup({ plan }: UpgradeTarget, look: Look, ctx: UpgradeContext): Promise<void> {
  const { config, layout, logger, signal } = ctx;
  if (!config.unsafeSkipBackup) {
    const events = ctx.events ? { events: ctx.events } : {};
    await backupBeforeUpgrade({ upgrade: { name: plan.name, height: plan.height }, config, layout, logger, signal, ...events });
    look.stale = true;
  }
  signal.throwIfAborted();
}

/** custom pre-upgrade: COSMOVISOR_CUSTOM_PREUPGRADE. */
export async function customPreUpgrade({ plan }: UpgradeTarget, look: Look, ctx: UpgradeContext): Promise<void> {
  const { config, layout, logger, signal } = ctx;
  if (config.customPreUpgrade === '') return;
  await runCustomPreUpgrade({ script: path.join(layout.root, config.customPreUpgrade), plan, cwd: layout.home, logger });
  signal.throwIfAborted();
  look.stale = true;
}

/** binary: installed, or downloaded and verified (src/download); returns the plan record, begun now if not yet. */
export async function binary(target: UpgradeTarget, look: Look, record: PlanRecord | undefined, ctx: UpgradeContext): Promise<PlanRecord> {
  const { config, layout, logger, signal } = ctx;
  await freshen(look, target.binary);
  if (look.stats?.isFile() !== true) {
    if (!config.allowDownloadBinaries) throw await missingBinary(target, ctx);
    // Loaded on demand: the HTTP and archive stack stays off the start-up path of nodes that never download.
    const download = ctx.download ?? (await import('../download/index.js')).downloadUpgradeBinary;
    await download({ target, config, layout, logger, signal, ...(ctx.events ? { events: ctx.events } : {}) });
    signal.throwIfAborted();
    look.stats = await statBinary(target.binary, ExitCode.upgradeFailed);
  }
  return record ?? { committed: recordPlan(planRecordPath(layout, target.dir), target.plan) };
}

/** pre-upgrade: `<new binary> pre-upgrade`, while the plan record is committed; returns the record's flush. */
export async function preUpgrade(
  { plan, binary }: UpgradeTarget,
  look: Look,
  record: PlanRecord,
  ctx: UpgradeContext,
  standby: Standby | undefined,
): Promise<() => Promise<void>> {
  const { config, logger, signal } = ctx;
  const prepare = async (found: Stats | undefined) => {
    if (!acceptNodeBinary(binary, found, { logger, when: `switching to upgrade "${plan.name}"`, exitCode: ExitCode.upgradeFailed })) {
      throw new ChainvisorError('CHAINVISOR_UPGRADE_BINARY_MISSING', `${binary} is not a regular file; current was not switched`, {
        hint: `put the node binary of upgrade "${plan.name}" there (chainvisor add-upgrade ${plan.name} <path> --force), then start chainvisor again — the upgrade is applied at start-up`,
      });
    }
    await makeExecutable(binary, found as Stats);
    await runPreUpgrade({ binary, maxRetries: config.preUpgradeMaxRetries, logger, standby, args: ctx.preUpgradeArgs ?? [] });
  };
  const [prepared, recorded] = await Promise.allSettled([prepare(look.stats), record.committed]);
  if (prepared.status === 'rejected') throw prepared.reason;
  if (recorded.status === 'rejected') throw recorded.reason;
  signal.throwIfAborted();
  return recorded.value;
}

/**
 * switch: the link made ahead renamed over `current`, the folder flushed; the record's folder is
 * flushed beside it (a crash in between can lose the record's name, never `current`'s: the next start
 * then sees `current` on this folder, which is all the record is for).
 */
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

/** Looks at the binary again when a step since the last look may have changed it. */
async function freshen(look: Look, binary: string): Promise<void> {
  if (look.stale) look.stats = await statBinary(binary, ExitCode.config);
  look.stale = false;
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
