/**
 * The status of one home: the live state `run` tracks from the event bus, what the home's files say,
 * and the document both make (`/status`, `chainvisor status`).
 */
export { type BuildOptions, buildStatus, type StatusDocument } from './document.js';
export { type HomeFacts, readHome, upgradeBinaryPresent } from './home.js';
export { type LastUpgrade, type LiveState, type LiveTracker, type NodeState, trackLive } from './live.js';
export { statusOfHome } from './of-home.js';
export { readRehearsals, rehearsalsPath, type RehearsalSummary } from './rehearsals.js';
export { renderStatus } from './render.js';
export { readStatusFile, type StatusFileWriter, writeStatusFile } from './state-file.js';
export { shareBar, watchLine, watchScreen } from './watch.js';
