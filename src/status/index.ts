/**
 * The status of one home: the live state `run` tracks from the event bus, what the home's files say,
 * and the document both make (`/status`, `chainvisor status`).
 */
import type { Layout } from '../layout/index.js';
import { type StatusDocument, buildStatus } from './document.js';
import { readStatusFile } from './state-file.js';

export { type StatusDocument, type BuildOptions, buildStatus } from './document.js';
export { type HomeFacts, readHome, upgradeBinaryPresent } from './home.js';
export { type LiveState, type LiveTracker, type NodeState, type LastUpgrade, trackLive } from './live.js';
export { type StatusFileWriter, readStatusFile, statusFilePath, writeStatusFile } from './state-file.js';
export { renderStatus } from './render.js';
export { type RehearsalSummary, readRehearsals, rehearsalsPath } from './rehearsals.js';

/** For `chainvisor status`: the live state of a running `run` when there is one, the home otherwise. */
export async function statusOfHome(options: { layout: Layout; backupDir: string; recase: boolean; version: string }): Promise<StatusDocument> {
  const file = await readStatusFile(options.layout);
  const live = file?.alive ? file.live : undefined;
  const history = file && !file.alive ? { lastUpgrade: file.live.lastUpgrade, backups: file.live.backups } : undefined;
  return buildStatus({ ...options, live, history });
}
