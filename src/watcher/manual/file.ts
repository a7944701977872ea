/**
 * `$DAEMON_HOME/data/upgrade-info.json.batch`: the queue of manual upgrades (no governance), a JSON
 * array of plans `{name, height, info?}` as cosmovisor v1.7 writes it. Read leniently (any order, `info`
 * optional) and written sorted by height, atomically, so a crash leaves the old queue or the new one.
 * Two entries at the same height, or with the same name, are refused: the node can halt only once
 * per height, and the name is the folder of the binary.
 */
import fs from 'node:fs/promises';

import { ChainvisorError } from '../../shared/errors/index.js';
import { readBounded } from '../../shared/fsread/index.js';
import { makeFolders, writeFileAtomic } from '../../shared/fswrite/index.js';

/** Where the queue lives (the home's layout has both): `data/` and `data/upgrade-info.json.batch` in it. */
export interface QueueFiles {
  dataDir: string;
  batchFile: string;
}

export interface ManualPlan {
  name: string;
  height: number;
  info: string;
  /**
   * `"wait_for_restart": true` (chainvisor's own field; cosmovisor ignores it): queued on a validator
   * without the go-ahead to restart its node, so a running `run` does not restart the node to pass it this
   * height; it stops the node when it reports the height instead (docs/manual-upgrades.md).
   */
  waitForRestart?: true;
}

export type QueueRead = { status: 'missing' } | { status: 'invalid'; reason: string; text: string } | { status: 'valid'; plans: ManualPlan[]; text: string };

export function byHeight(a: ManualPlan, b: ManualPlan): number {
  return a.height - b.height;
}

/** Parses the text of a batch file; plans come back sorted by height. */
export function parseQueue(text: string): { ok: true; plans: ManualPlan[] } | { ok: false; reason: string } {
  if (text.trim() === '') return { ok: true, plans: [] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `not valid JSON (${(error as Error).message})` };
  }
  if (!Array.isArray(value)) return { ok: false, reason: 'expected a JSON array of plans {"name", "height", "info"}' };
  const plans: ManualPlan[] = [];
  const reasons: string[] = [];
  value.forEach((item: unknown, i) => {
    const problem = planProblem(item);
    if (problem !== undefined) reasons.push(`entry ${i}: ${problem}`);
    else {
      const { name, height, info, wait_for_restart: wait } = item as { name: string; height: number; info?: string | null; wait_for_restart?: unknown };
      plans.push({ name, height, info: typeof info === 'string' ? info : '', ...(wait === true ? { waitForRestart: true as const } : {}) });
    }
  });
  reasons.push(...clashes(plans));
  if (reasons.length > 0) return { ok: false, reason: reasons.join('; ') };
  return { ok: true, plans: plans.sort(byHeight) };
}

function planProblem(item: unknown): string | undefined {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return 'expected an object {"name", "height", "info"}';
  const { name, height, info } = item as Record<string, unknown>;
  if (typeof name !== 'string' || name.trim() === '') return '"name" must be a non-empty string';
  // cosmovisor writes the height as a number; a Go-style string ("123") is read as well.
  const h = typeof height === 'string' && /^\d+$/.test(height) ? Number(height) : height;
  if (typeof h !== 'number' || !Number.isSafeInteger(h) || h <= 0) return `"height" of "${name}" must be a whole number above 0`;
  (item as Record<string, unknown>).height = h;
  if (info !== undefined && info !== null && typeof info !== 'string') return `"info" of "${name}" must be a string`;
  return undefined;
}

/** Every name or height used twice in `plans`. */
export function clashes(plans: readonly ManualPlan[]): string[] {
  const problems: string[] = [];
  const names = new Map<string, ManualPlan>();
  const heights = new Map<number, ManualPlan>();
  for (const plan of plans) {
    const sameName = names.get(plan.name.toLowerCase());
    if (sameName) problems.push(`the name "${plan.name}" is used twice (heights ${sameName.height} and ${plan.height})`);
    const sameHeight = heights.get(plan.height);
    if (sameHeight) problems.push(`two upgrades at height ${plan.height} ("${sameHeight.name}" and "${plan.name}")`);
    names.set(plan.name.toLowerCase(), plan);
    heights.set(plan.height, plan);
  }
  return problems;
}

export async function readQueue(layout: QueueFiles): Promise<QueueRead> {
  // A regular file of at most 1 MiB (a FIFO or a device at the path is refused, never read).
  const read = await readBounded(layout.batchFile, 1024 * 1024);
  if (read.status === 'missing') return { status: 'missing' };
  if (read.status === 'refused') {
    throw new ChainvisorError('CHAINVISOR_BATCH_READ', `could not read ${layout.batchFile}: ${read.reason}`, {
      hint: 'it must be a regular JSON file (at most 1 MiB) readable by chainvisor; move aside whatever is there',
    });
  }
  const text = read.text;
  const parsed = parseQueue(text);
  return parsed.ok ? { status: 'valid', plans: parsed.plans, text } : { status: 'invalid', reason: parsed.reason, text };
}

/** The queued plans; an unreadable or invalid file is an error (commands must not overwrite it blindly). */
export async function readQueued(layout: QueueFiles): Promise<ManualPlan[]> {
  const read = await readQueue(layout);
  if (read.status === 'missing') return [];
  if (read.status === 'invalid') {
    throw new ChainvisorError('CHAINVISOR_BATCH_INVALID', `${layout.batchFile} is not a valid upgrade batch: ${read.reason}`, {
      hint: 'fix the file by hand (a JSON array of {"name": "...", "height": N, "info": "..."}) or remove it',
    });
  }
  return read.plans;
}

export function serializeQueue(plans: readonly ManualPlan[]): string {
  const out = [...plans]
    .sort(byHeight)
    .map((p) => ({ name: p.name, height: p.height, ...(p.info === '' ? {} : { info: p.info }), ...(p.waitForRestart ? { wait_for_restart: true } : {}) }));
  return `${JSON.stringify(out, null, 2)}\n`;
}

/** Replaces the queue; an empty queue removes the file (cosmovisor reads a missing file as empty). */
export async function writeQueue(layout: QueueFiles, plans: readonly ManualPlan[]): Promise<void> {
  try {
    await makeFolders(layout.dataDir);
    if (plans.length === 0) await fs.rm(layout.batchFile, { force: true });
    else await writeFileAtomic(layout.batchFile, serializeQueue(plans), 0o644);
  } catch (error) {
    throw new ChainvisorError('CHAINVISOR_BATCH_WRITE', `could not write ${layout.batchFile}: ${(error as Error).message}`, {
      hint: 'check the permissions and free space of the data folder; the queue was left as it was',
      cause: error,
    });
  }
}
