/**
 * The manual-upgrade queue in a restore (issue #43): `data/upgrade-info.json.batch` lives in `data/`,
 * but it is the operator's instruction of today, not the chain's state of the backup's time. The
 * current queue is carried over into the restored data unless `--drop-queue`; the backup's is never
 * put back (its entries may have been applied or removed since).
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import { ChainvisorError, isErrno } from '../../shared/errors/index.js';
import { copyFileAtomic } from '../../shared/fswrite/index.js';
import { readQueue } from '../../watcher/manual/index.js';

const batchName = 'upgrade-info.json.batch';

/** A queue as the plan shows it: absent, its entries, or why it is not a valid batch. */
export type QueueSide = { status: 'missing' } | { status: 'valid'; plans: Array<{ name: string; height: number }> } | { status: 'invalid'; reason: string };

/** The queue half of a restore plan. */
export interface QueuePlan {
  /** The queue of the data replaced, and the backup's. */
  current: QueueSide;
  backup: QueueSide;
  /** Whether the current queue is carried into the restored data (false: --drop-queue, or there is none). */
  kept: boolean;
  dropped: boolean;
}

async function readSide(dir: string): Promise<QueueSide> {
  const read = await readQueue({ dataDir: dir, batchFile: path.join(dir, batchName) });
  if (read.status === 'valid') return { status: 'valid', plans: read.plans.map(({ name, height }) => ({ name, height })) };
  return read.status === 'invalid' ? { status: 'invalid', reason: read.reason } : { status: 'missing' };
}

/** The backup's queue is only described: one that cannot be read (a FIFO, over 1 MiB) is said so, never refuses the restore. */
async function describedSide(dir: string): Promise<QueueSide> {
  try {
    return await readSide(dir);
  } catch (error) {
    if (!(error instanceof ChainvisorError)) throw error;
    return { status: 'invalid', reason: error.message };
  }
}

export async function planQueue(dataDir: string, backup: string, drop: boolean): Promise<QueuePlan> {
  const current = await readSide(dataDir);
  return { current, backup: await describedSide(backup), kept: !drop && current.status !== 'missing', dropped: drop };
}

/** Into the copy `work`: the current queue as it is (bytes unchanged, valid or not), or none. */
export async function carryQueue(queue: QueuePlan, dataDir: string, work: string): Promise<void> {
  const into = path.join(work, batchName);
  await fs.rm(into, { force: true });
  if (!queue.kept) return;
  try {
    await copyFileAtomic(path.join(dataDir, batchName), into, 0o644);
  } catch (error) {
    // Emptied since the plan was made (its last entry applied or removed): nothing to carry.
    if (!isErrno(error, 'ENOENT') && (error as { code?: unknown }).code !== 'CHAINVISOR_BINARY_NOT_FOUND') throw error;
  }
}

/** The plan's line: `kept: v3 at 300, v4 at 400 (…)`. */
export function describeQueue(queue: QueuePlan): string {
  const list = (side: QueueSide): string =>
    side.status === 'valid'
      ? side.plans.length === 0
        ? 'empty'
        : side.plans.map((p) => `${p.name} at ${p.height}`).join(', ')
      : side.status === 'invalid'
        ? `not a valid batch (${side.reason})`
        : 'none';
  const { current, backup } = queue;
  const now =
    current.status === 'missing'
      ? 'none queued'
      : queue.dropped
        ? `dropped (--drop-queue): ${list(current)}`
        : `kept: ${list(current)} (data/${batchName} carried over into the restored data; --drop-queue drops it)`;
  const old = backup.status === 'missing' ? '' : `; the backup's queue (${list(backup)}) is not put back`;
  return `${now}${old}`;
}
