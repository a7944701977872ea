/**
 * `chainvisor restore` itself (issue #28): a backup made by chainvisor put back as `data/`. The backup is
 * copied, never moved or linked — clones where the filesystem allows, copies otherwise — so the restored
 * data has inodes of its own and the backup survives for another try; the free space is checked first,
 * as for a backup. The copy goes to a work folder; the signing state further ahead is put in it (never
 * the one that went back), and today's manual-upgrade queue (./restore-queue.ts); then the swap and
 * the rest (./restore-journal.ts, crash-safe).
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

import { ChainvisorError, isFsError } from '../../shared/errors/index.js';
import { copyFileAtomic, fsyncDir } from '../../shared/fswrite/index.js';
import type { Logger } from '../../shared/log.js';
import { formatBytesExact } from '../../shared/units.js';
import type { Layout } from '../layout/index.js';
import { createPlacer } from './place.js';
import { runPool } from './pool.js';
import { completeSwap, journalPath, type RestoreJournal, type RestoreStep, writeJournal } from './restore-journal.js';
import type { RestorePlan } from './restore-plan.js';
import { carryQueue } from './restore-queue.js';
import type { RestoreRecord } from './restore-record.js';
import type { RestoreSigning, SignSide } from './restore-signing.js';
import { bytesNeeded, type StatfsFn } from './space.js';
import { readTree, type Tree } from './tree.js';

export interface RestoreOptions {
  plan: RestorePlan;
  layout: Layout;
  logger: Logger;
  /** The double-sign guard's side: the sign record raised to the signing state kept. */
  signing: RestoreSigning;
  /** Called with the bytes done and the total as files are written. */
  onProgress?: (bytes: number, total: number) => void;
  /** Test hook: the free-space query (fs.statfs). */
  statfs?: StatfsFn;
  /** Test hook: told as each step is passed (a test stops the process there). */
  onStep?: (step: RestoreStep) => void;
  concurrency?: number;
}

export async function restoreData(options: RestoreOptions): Promise<RestoreRecord> {
  const { plan, layout, logger, signing, onStep } = options;
  const started = Date.now();
  const tree = await readBackupTree(plan.backup);
  const parent = path.dirname(plan.dataDir);
  const mode = (await clones(tree, parent)) ? 'reflink' : 'copy';
  await checkRestoreSpace(tree, mode, parent, options.statfs);
  logger.info(
    { backup: plan.backup, to: plan.dataDir, mode, files: tree.files.length, bytes: tree.bytes },
    `restoring ${plan.backup}: ${tree.files.length} files, ${formatBytesExact(tree.bytes)}, as ${mode === 'reflink' ? 'clones' : 'copies'}`,
  );

  const height = (side: SignSide): string | null => (side === 'missing' ? null : side.height.toString());
  const kept = plan.signing.kept === 'replaced' ? plan.signing.replaced : plan.signing.kept === 'backup' ? plan.signing.backup : 'missing';
  const journal: RestoreJournal = {
    phase: 'copying',
    dataDir: plan.dataDir,
    work: plan.work,
    replaced: plan.replaced,
    currentTo: plan.current.installed && plan.current.to !== plan.current.from ? plan.current.to : undefined,
    signed:
      kept === 'missing' || plan.signing.rel === undefined
        ? undefined
        : {
            chainId: plan.signing.chainId,
            height: kept.height.toString(),
            round: kept.round,
            step: kept.step,
            file: path.join(plan.dataDir, plan.signing.rel),
          },
    record: {
      time: '',
      backup: plan.backup,
      dataDir: plan.dataDir,
      replaced: plan.replaced,
      mode,
      bytes: tree.bytes,
      files: tree.files.length,
      durationSeconds: 0,
      signing: { kept: plan.signing.kept, replacedHeight: height(plan.signing.replaced), backupHeight: height(plan.signing.backup) },
      current: { from: plan.current.from, to: plan.current.installed ? plan.current.to : plan.current.from },
    },
  };
  await writeJournal(layout, journal);
  onStep?.('copying');
  try {
    await copyTree(tree, plan.work, { mode, logger, parent, concurrency: options.concurrency ?? 12, onProgress: options.onProgress });
    if (plan.signing.kept === 'replaced' && plan.signing.rel !== undefined) {
      // The signing state never goes back: the one the replaced data holds is further ahead.
      const into = path.join(plan.work, plan.signing.rel);
      await fs.mkdir(path.dirname(into), { recursive: true });
      await copyFileAtomic(path.join(plan.dataDir, plan.signing.rel), into, 0o600);
    }
    await carryQueue(plan.queue, plan.dataDir, plan.work);
    await fsyncDir(parent);
  } catch (error) {
    await fs.rm(plan.work, { recursive: true, force: true });
    await fs.rm(journalPath(layout), { force: true });
    throw new ChainvisorError(
      'CHAINVISOR_RESTORE_FAILED',
      `restore of ${plan.backup} failed while copying it to ${plan.work}: ${(error as Error).message}; ${plan.dataDir} was not touched and the partial copy was removed`,
      { cause: error },
    );
  }
  onStep?.('copied');
  journal.phase = 'swapping';
  journal.record.durationSeconds = (Date.now() - started) / 1000;
  await writeJournal(layout, journal);
  try {
    await completeSwap(layout, journal, { logger, signing, onStep });
  } catch (error) {
    throw swapFailed(plan.backup, error);
  }
  return { ...journal.record, time: new Date().toISOString() };
}

/**
 * The backup's tree, read before anything is written: something in it a restore cannot put back (a
 * FIFO, a socket, a device: a backup chainvisor made holds none) or cannot read stops the restore
 * with nothing touched (issue #31).
 */
async function readBackupTree(backup: string): Promise<Tree> {
  const refuse = (file: string, type: string): ChainvisorError =>
    new ChainvisorError('CHAINVISOR_RESTORE_FAILED', `cannot restore ${backup}: ${file} is ${type}, which a restore cannot put back; nothing was changed`, {
      hint: `move it out of the backup folder (a backup chainvisor made holds only files, folders and symbolic links), or restore another backup with --backup <folder>`,
    });
  try {
    return await readTree(backup, undefined, refuse);
  } catch (error) {
    if (error instanceof ChainvisorError || !isFsError(error)) throw error;
    throw new ChainvisorError('CHAINVISOR_RESTORE_FAILED', `cannot read the backup ${backup}: ${error.message}; nothing was changed`, {
      hint: 'make the whole backup folder readable by this user, or restore another backup with --backup <folder>',
      cause: error,
    });
  }
}

/** The copy is whole and the journal says so: whatever stopped the swap, the next `restore` or `run` finishes it. */
function swapFailed(backup: string, error: unknown): ChainvisorError {
  return new ChainvisorError(
    'CHAINVISOR_RESTORE_FAILED',
    `restore of ${backup} failed while putting its copy in place: ${(error as Error).message}; the copy is whole and the next 'chainvisor restore' or 'chainvisor run' finishes the restore`,
    { cause: error },
  );
}

async function checkRestoreSpace(tree: Tree, mode: 'reflink' | 'copy', dir: string, statfs?: StatfsFn): Promise<void> {
  const stats = await (statfs ?? ((d: string) => fs.statfs(d)))(dir);
  const blockSize = Number(stats.bsize) || 4096;
  const available = Number(stats.bavail) * blockSize;
  const needed = bytesNeeded(tree, mode, blockSize);
  if (needed <= available) return;
  throw new ChainvisorError(
    'CHAINVISOR_RESTORE_NO_SPACE',
    `not enough space to restore ${tree.dataDir} in ${dir}: the ${mode === 'reflink' ? 'clones need' : 'copy needs'} ${formatBytesExact(needed)}, ${formatBytesExact(available)} is available; nothing was written`,
    {
      hint: `free ${formatBytesExact(needed - available)} or more in ${dir} (old data.replaced-* folders, older data-backup-* folders), then run chainvisor restore again`,
    },
  );
}

/** Whether one file of the backup can be cloned beside the data: then every file is a clone (or a copy where refused). */
async function clones(tree: Tree, dir: string): Promise<boolean> {
  const sample = tree.files.findLast((f) => f.size > 0) ?? tree.files[0];
  if (sample === undefined) return false;
  const probe = path.join(dir, `.chainvisor-clone-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    await fs.copyFile(path.join(tree.root, sample.rel), probe, constants.COPYFILE_FICLONE_FORCE | constants.COPYFILE_EXCL);
    return true;
  } catch {
    return false;
  } finally {
    await fs.rm(probe, { force: true });
  }
}

/** The backup's tree into `into`, with its modes, times and symlinks, as a backup is written. */
async function copyTree(
  tree: Tree,
  into: string,
  options: { mode: 'reflink' | 'copy'; logger: Logger; parent: string; concurrency: number; onProgress: ((bytes: number, total: number) => void) | undefined },
): Promise<void> {
  const placer = createPlacer({ mode: options.mode, logger: options.logger, backupDir: options.parent });
  let done = 0;
  const onBytes = (n: number): void => {
    done += n;
    options.onProgress?.(done, tree.bytes);
  };
  for (const dir of tree.dirs) await fs.mkdir(path.join(into, dir.rel), { mode: 0o700 });
  await runPool(tree.files, options.concurrency, (file) => placer.place(path.join(tree.root, file.rel), path.join(into, file.rel), file, onBytes));
  await runPool(tree.symlinks, options.concurrency, async (link) => {
    const dst = path.join(into, link.rel);
    await fs.symlink(await fs.readlink(path.join(tree.root, link.rel)), dst);
    await fs.lutimes(dst, link.atime, link.mtime);
  });
  for (const dir of [...tree.dirs].reverse()) {
    const full = path.join(into, dir.rel);
    await fs.chmod(full, dir.mode);
    await fs.utimes(full, dir.atime, dir.mtime);
  }
}
