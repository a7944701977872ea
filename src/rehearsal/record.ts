/**
 * `cosmovisor/.chainvisor/rehearsals.json`: the last rehearsal of each upgrade, the only file a rehearsal
 * writes in the live home. `status` shows it; `run` follows it for metrics and webhooks, and rehearses
 * automatically only an upgrade whose staged binary has no record yet (by its sha256).
 */
import path from 'node:path';
import { isErrno } from '../errors/index.js';
import { readBounded } from '../fsread/index.js';
import { type Layout, makeFolders, writeFileAtomic } from '../layout/index.js';

export interface RehearsalPhases {
  /** Seconds; null when the phase was not reached. */
  copy: number | null;
  halt: number | null;
  migration: number | null;
  blocks: number | null;
}

export interface RehearsalReport {
  upgrade: string;
  result: 'passed' | 'failed';
  reason: string | null;
  /** The height at which the scratch ran the upgrade. */
  height: number | null;
  migration_seconds: number | null;
  blocks_after_upgrade: number;
  peak_rss_bytes: number | null;
  scratch_bytes: number;
  phases: RehearsalPhases;
  log_tail: string[];
  started_at: string;
  finished_at: string;
  /** sha256 of the upgrade binary rehearsed. */
  binary_sha256: string;
  /** Where the scratch home is, with --keep. */
  kept?: string;
}

export function rehearsalsPath(layout: Layout): string {
  return path.join(layout.stateDir, 'rehearsals.json');
}

export async function readRehearsals(layout: Layout): Promise<RehearsalReport[]> {
  try {
    const read = await readBounded(rehearsalsPath(layout), 4 * 1024 * 1024);
    if (read.status !== 'ok') return [];
    const value = JSON.parse(read.text) as unknown;
    return Array.isArray(value) ? (value as RehearsalReport[]) : [];
  } catch (error) {
    if (error instanceof SyntaxError || isErrno(error, 'ENOENT')) return [];
    throw error;
  }
}

/** Keeps the newest report of each upgrade (the last 20 upgrades). */
export async function recordRehearsal(layout: Layout, report: RehearsalReport): Promise<void> {
  const kept = (await readRehearsals(layout)).filter((r) => r.upgrade !== report.upgrade);
  kept.push(report);
  await makeFolders(layout.stateDir);
  await writeFileAtomic(rehearsalsPath(layout), `${JSON.stringify(kept.slice(-20), null, 2)}\n`, 0o644);
}
