/**
 * `cosmovisor/.chainvisor/rehearsals.json`: the last rehearsal of each upgrade, the only file a rehearsal
 * writes in the live home. `status` reads it (src/observe/status/rehearsals.ts); `run` follows it for metrics
 * and webhooks, and rehearses automatically only an upgrade whose staged binary has no record yet.
 */
import type { Layout } from '../home/layout/index.js';
import { readRehearsals, rehearsalsPath, type RehearsalSummary } from '../observe/status/index.js';
import { makeFolders, writeFileAtomic } from '../shared/fswrite/index.js';

export type RehearsalReport = RehearsalSummary;
export type RehearsalPhases = RehearsalSummary['phases'];
export { readRehearsals, rehearsalsPath };

/** Keeps the newest report of each upgrade (of the last 20 upgrades rehearsed). */
export async function recordRehearsal(layout: Layout, report: RehearsalReport): Promise<void> {
  const kept = (await readRehearsals(layout)).filter((r) => r.upgrade !== report.upgrade);
  kept.push(report);
  await makeFolders(layout.stateDir);
  await writeFileAtomic(rehearsalsPath(layout), `${JSON.stringify(kept.slice(-20), null, 2)}\n`, 0o644);
}
