/**
 * The status of one home: the live state `run` tracks from the event bus, what the home's files say,
 * and the document both make (`/status`, `chainvisor status`).
 */
import type { Layout } from '../../home/layout/index.js';
import { buildStatus, type StatusDocument } from './document.js';
import { readStatusFile } from './state-file.js';

export { type BuildOptions, buildStatus, type StatusDocument } from './document.js';
export { type HomeFacts, readHome, upgradeBinaryPresent } from './home.js';
export { type LastUpgrade, type LiveState, type LiveTracker, type NodeState, trackLive } from './live.js';
export { readRehearsals, rehearsalsPath, type RehearsalSummary } from './rehearsals.js';
export { renderStatus } from './render.js';
export { type StatusFileWriter, writeStatusFile } from './state-file.js';
export { shareBar, watchLine, watchScreen } from './watch.js';

/** For `chainvisor status`: the live state of a running `run` when there is one, the home otherwise. */
export async function statusOfHome(options: { layout: Layout; backupDir: string; recase?: boolean; version: string }): Promise<StatusDocument> {
  const file = await readStatusFile(options.layout);
  const live = file?.alive ? file.live : undefined;
  const history =
    file && !file.alive
      ? { lastUpgrade: file.live.lastUpgrade, backups: file.live.backups, afterUpgrade: file.live.afterUpgrade ?? null, twinCheck: file.live.twinCheck ?? null }
      : undefined;
  return buildStatus({ ...options, live, history });
}
