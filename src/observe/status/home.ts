/**
 * What the home says, read fresh each time: the binary `current` points at, the plan the node halted
 * for (data/upgrade-info.json) when it is not applied yet, binaries installed ahead of their upgrade,
 * manual upgrades queued in the batch file, and the backup folders. This is all `chainvisor status`
 * can know when `run` is not active, and what `run`'s own status adds its live facts to.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import * as v from 'valibot';

import { readUpgradeInfo } from '../../chain/index.js';
import { readStagedRecords } from '../../download/staging/index.js';
import { backupMadeAt } from '../../home/backup/index.js';
import { binaryPath, genesis, isFile, type Layout, planBinaryDir, planRecordPath, readCurrent, upgradeBinaryDir } from '../../home/layout/index.js';
import { isErrno } from '../../shared/errors/index.js';
import { readBounded } from '../../shared/fsread/index.js';
import { parseJson } from '../../shared/json.js';
import { readRehearsals, type RehearsalSummary } from './rehearsals.js';
import { readLastRestore, type RestoreSummary } from './restores.js';

export interface HomeFacts {
  current: { name: string; dir: string; binary: string; height: number | null };
  /** The plan in data/upgrade-info.json when `current` is not its binary yet. */
  haltPlan: { name: string; height: number } | null;
  /**
   * Upgrade folders with a binary that has not been switched to yet (no plan recorded beside it).
   * `source`: where the binary came from, when CHAINVISOR_UPGRADE_SOURCES names more than the plan (issue #34).
   * `planned: false` and `cancelledAt`: staged for a plan cancelled on chain since, kept on disk (issue #45).
   * `proposal`: staged for this governance proposal while its vote runs, not yet for a plan.
   */
  staged: { name: string; dir: string; binary: string; source?: string; planned?: false; cancelledAt?: string; proposal?: string }[];
  /** Manual upgrades waiting in data/upgrade-info.json.batch. */
  queued: { name: string; height: number; info?: string }[];
  /** `data-backup-*` folders, newest first. */
  backups: { name: string; path: string; time: string | null }[];
  /** The last rehearsal of each upgrade, newest first (cosmovisor/.chainvisor/rehearsals.json). */
  rehearsals: RehearsalSummary[];
  /** The last `chainvisor restore` (cosmovisor/.chainvisor/restores.json). */
  lastRestore: RestoreSummary | null;
  /** Files that could not be read or made sense of. */
  problems: string[];
}

export interface HomeOptions {
  layout: Layout;
  /** DAEMON_DATA_BACKUP_DIR. */
  backupDir: string;
  /** !COSMOVISOR_DISABLE_RECASE; by default the layout's rule. */
  recase?: boolean;
}

export async function readHome(options: HomeOptions): Promise<HomeFacts> {
  const { layout } = options;
  const problems: string[] = [];
  const current = await readCurrentFacts(layout, problems);
  const haltPlan = await readHaltPlan(options, current.dir, problems);
  const [staged, queued, backups, rehearsals, lastRestore] = await Promise.all([
    readStaged(layout, current.dir, problems),
    readQueued(layout, problems),
    readBackups(options.backupDir, problems),
    readRehearsals(layout, problems),
    readLastRestore(layout, problems),
  ]);
  return { current, haltPlan, staged, queued, backups, rehearsals: rehearsals.reverse(), lastRestore, problems };
}

/** Whether upgrades/<name>/bin/$DAEMON_NAME is installed for a plan name. */
export async function upgradeBinaryPresent(layout: Layout, name: string, recase = layout.recase): Promise<boolean> {
  try {
    return await isFile(binaryPath(layout, planBinaryDir(name, { recase })));
  } catch {
    return false; // a name that cannot be a folder has no binary
  }
}

async function readCurrentFacts(layout: Layout, problems: string[]): Promise<HomeFacts['current']> {
  try {
    const current = await readCurrent(layout);
    const name = current.plan?.name ?? (current.dir === genesis ? genesis : path.basename(current.dir));
    return { name, dir: current.dir, binary: binaryPath(layout, current.dir), height: current.plan?.height ?? null };
  } catch (error) {
    problems.push(`current: ${(error as Error).message}`);
    return { name: 'unknown', dir: 'unknown', binary: '', height: null };
  }
}

async function readHaltPlan(options: HomeOptions, currentDir: string, problems: string[]): Promise<HomeFacts['haltPlan']> {
  const read = await readUpgradeInfo(options.layout.upgradeInfoFile).catch((error: unknown) => ({
    status: 'invalid' as const,
    reason: (error as Error).message,
  }));
  if (read.status === 'missing') return null;
  if (read.status === 'invalid') {
    problems.push(`${options.layout.upgradeInfoFile}: ${read.reason}`);
    return null;
  }
  try {
    if (planBinaryDir(read.plan.name, { recase: options.recase ?? options.layout.recase }) === currentDir) return null;
  } catch {
    // A name that cannot be a folder is still the plan the node halted for.
  }
  return { name: read.plan.name, height: read.plan.height };
}

async function readStaged(layout: Layout, currentDir: string, problems: string[]): Promise<HomeFacts['staged']> {
  const names = await listDir(layout.upgradesDir, problems);
  const staged: HomeFacts['staged'] = [];
  const records = names.length === 0 ? {} : await readStagedRecords(layout);
  for (const name of names.sort()) {
    const dir = upgradeBinaryDir(name);
    if (dir === currentDir) continue;
    const binary = binaryPath(layout, dir);
    try {
      if (!(await isFile(binary))) continue;
      if (await isFile(planRecordPath(layout, dir))) continue; // switched to before: a past upgrade
    } catch (error) {
      // A link loop or a denied folder in one upgrade folder: say so, and show the rest.
      problems.push(`${dir}: ${(error as Error).message}`);
      continue;
    }
    const { source, cancelledAt, proposal } = records[dir] ?? {};
    staged.push({
      name,
      dir,
      binary,
      ...(typeof source === 'string' ? { source } : {}),
      ...(typeof cancelledAt === 'string' ? { planned: false as const, cancelledAt } : {}),
      ...(typeof proposal === 'string' ? { proposal } : {}),
    });
  }
  return staged;
}

/** The batch file as `status` lists it: a JSON array; an entry without a name and a height is left out (`run` says why). */
const queueSchema = v.array(v.unknown());
const queuedSchema = v.object({ name: v.string(), height: v.number(), info: v.optional(v.unknown()) });

async function readQueued(layout: Layout, problems: string[]): Promise<HomeFacts['queued']> {
  const read = await readBounded(layout.batchFile, 1024 * 1024);
  if (read.status !== 'ok') {
    if (read.status === 'refused') problems.push(`${layout.batchFile}: ${read.reason}`);
    return [];
  }
  const parsed = parseJson(read.text, queueSchema);
  if (!parsed.ok) {
    problems.push(`${layout.batchFile}: ${parsed.reason}`);
    return [];
  }
  return parsed.value
    .filter((e) => v.is(queuedSchema, e))
    .map((e) => ({ name: e.name, height: e.height, ...(typeof e.info === 'string' && e.info !== '' ? { info: e.info } : {}) }))
    .sort((a, b) => a.height - b.height);
}

async function readBackups(backupDir: string, problems: string[]): Promise<HomeFacts['backups']> {
  const names = (await listDir(backupDir, problems)).filter((name) => name.startsWith('data-backup-'));
  const backups = await Promise.all(
    names.map(async (name) => {
      const full = path.join(backupDir, name);
      const stat = await fs.stat(full).catch(() => undefined);
      return stat?.isDirectory() ? { name, path: full, time: backupMadeAt(name, stat.mtime).toISOString() } : undefined;
    }),
  );
  return backups.filter((b) => b !== undefined).sort((a, b) => (b.time ?? '').localeCompare(a.time ?? ''));
}

async function listDir(dir: string, problems: string[]): Promise<string[]> {
  try {
    return await fs.readdir(dir);
  } catch (error) {
    if (!isErrno(error, 'ENOENT')) problems.push(`${dir}: ${(error as Error).message}`);
    return [];
  }
}
