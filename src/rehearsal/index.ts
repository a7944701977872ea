/**
 * Rehearsals (issue #19, docs/rehearsal.md): an upgrade run on a scratch copy of this node's own state,
 * while the live node keeps running, to learn before the height whether the new binary migrates it.
 */
export { type RehearseOptions, rehearse } from './rehearse.js';
export { type RehearsalReport, type RehearsalPhases, readRehearsals, recordRehearsal, rehearsalsPath } from './record.js';
export { removeLeftoverRehearsals } from './scratch-dir.js';
export { renderReport } from './report.js';
export { followRehearsals } from './follow.js';
export { type AutoRehearsalOptions, startAutoRehearsal } from './auto.js';
