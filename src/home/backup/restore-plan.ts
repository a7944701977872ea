/**
 * What `chainvisor restore` will do, worked out before anything is touched (and all `--dry-run`
 * prints): which backup (the newest one recorded, or `--backup`), where the current data goes
 * (`data.replaced-<time>` beside it) and the copy is made (`data.restoring-<time>`), which signing
 * state is kept — the further ahead by (height, round, step), never the one that went back (issue
 * #28), as the double-sign guard tells (./restore-signing.ts) — which binary `current` goes back to, and
 * the manual-upgrade queue carried over or dropped (./restore-queue.ts).
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import { readUpgradeInfo } from '../../chain/index.js';
import { ChainvisorError, isErrno } from '../../shared/errors/index.js';
import { binaryPath, genesis, type Layout, planRecordPath, readCurrentDir, upgradeBinaryDir } from '../layout/index.js';
import { type MadeBackup, readMadeBackups } from './record.js';
import { planQueue, type QueuePlan } from './restore-queue.js';
import type { RestoreSigning, SigningPlan } from './restore-signing.js';

export interface RestorePlan {
  backup: string;
  /** The backup's entry in backups.json, when chainvisor made it. */
  made: MadeBackup | undefined;
  /** The data folder replaced (the target of a symlinked `data/`: the link stays). */
  dataDir: string;
  work: string;
  replaced: string;
  signing: SigningPlan;
  current: {
    from: string;
    to: string;
    /** Where `to` came from. */
    source: 'record' | 'upgrade-info' | 'keep-binary' | 'unknown';
    /** Whether `to` has a binary installed (a switch to a folder without one is not made). */
    installed: boolean;
  };
  queue: QueuePlan;
}

export interface PlanOptions {
  layout: Layout;
  /** DAEMON_DATA_BACKUP_DIR. */
  backupDir: string;
  /** `--backup`: a folder, or a name in the backup folder. */
  backup?: string;
  keepBinary: boolean;
  /** `--drop-queue`: the restored data has no manual-upgrade queue. */
  dropQueue?: boolean;
  /** The double-sign guard's side: which signing state is kept. */
  signing: RestoreSigning;
  now?: Date;
}

export async function planRestore(options: PlanOptions): Promise<RestorePlan> {
  const { layout } = options;
  const { backup, made } = await chooseBackup(options);
  const dataDir = await realData(layout.dataDir);
  const stamp = (options.now ?? new Date()).toISOString().replace(/[:.]/g, '-');
  const signing = await options.signing.plan(dataDir, backup);
  const from = await readCurrentDir(layout);
  const current = options.keepBinary
    ? { from, to: from, source: 'keep-binary' as const }
    : made?.current !== undefined
      ? { from, to: made.current, source: 'record' as const }
      : await currentFromPlan(layout, backup, from);
  const installed = await fs.stat(binaryPath(layout, current.to)).then(
    (s) => s.isFile(),
    () => false,
  );
  return {
    backup,
    made,
    dataDir,
    work: `${dataDir}.restoring-${stamp}`,
    replaced: `${dataDir}.replaced-${stamp}`,
    signing,
    current: { ...current, installed },
    queue: await planQueue(dataDir, backup, options.dropQueue === true),
  };
}

async function chooseBackup(options: PlanOptions): Promise<{ backup: string; made: MadeBackup | undefined }> {
  const made = await readMadeBackups(options.layout);
  if (options.backup !== undefined) {
    const given = path.resolve(options.backup);
    const candidates = [given, ...(options.backup.includes('/') ? [] : [path.join(options.backupDir, options.backup)])];
    for (const candidate of candidates) {
      const stat = await fs.stat(candidate).catch(() => undefined);
      if (!stat?.isDirectory()) continue;
      const inData = path.relative(options.layout.dataDir, candidate);
      if (inData === '' || !inData.startsWith('..')) {
        throw new ChainvisorError('CHAINVISOR_RESTORE_NOTHING', `--backup ${options.backup}: ${candidate} is the data folder itself, or inside it`);
      }
      return { backup: candidate, made: made.find((b) => path.resolve(b.path) === candidate) };
    }
    throw new ChainvisorError('CHAINVISOR_RESTORE_NOTHING', `--backup ${options.backup}: no such folder (looked at ${candidates.join(' and ')})`);
  }
  const present: MadeBackup[] = [];
  for (const b of made) {
    if (b.dataDir !== options.layout.dataDir) continue;
    const stat = await fs.stat(b.path).catch(() => undefined);
    if (stat?.isDirectory()) present.push(b);
  }
  const newest = present.sort((a, b) => a.time.localeCompare(b.time)).at(-1);
  if (newest === undefined) {
    throw new ChainvisorError(
      'CHAINVISOR_RESTORE_NOTHING',
      `no backup to restore: chainvisor has recorded no backup of ${options.layout.dataDir} whose folder is still there (${made.length} recorded in ${options.layout.stateDir}/backups.json)`,
    );
  }
  return { backup: newest.path, made: newest };
}

/** The folder `data/` stands for: itself, or where it leads when it is a symlink (the link is kept). */
async function realData(dataDir: string): Promise<string> {
  try {
    return await fs.realpath(dataDir);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return dataDir; // no data at all: the backup becomes it
    throw error;
  }
}

/**
 * For a backup recorded before `current` was kept in the record: the backup was made at the halt for the
 * plan in its `upgrade-info.json`, so `current` was the binary before that upgrade — the upgrade folder
 * whose recorded plan has the highest height below it, or genesis.
 */
async function currentFromPlan(layout: Layout, backup: string, from: string): Promise<Omit<RestorePlan['current'], 'installed'>> {
  const read = await readUpgradeInfo(path.join(backup, 'upgrade-info.json'));
  if (read.status !== 'valid') return { from, to: from, source: 'unknown' };
  let best: { dir: string; height: number } = { dir: genesis, height: -1 };
  const names = await fs.readdir(layout.upgradesDir).catch(() => [] as string[]);
  for (const name of names) {
    const dir = upgradeBinaryDir(name);
    const recorded = await readUpgradeInfo(planRecordPath(layout, dir)).catch(() => undefined);
    if (recorded?.status !== 'valid') continue;
    const height = recorded.plan.height;
    if (height < read.plan.height && height > best.height) best = { dir, height };
  }
  return { from, to: best.dir, source: 'upgrade-info' };
}
