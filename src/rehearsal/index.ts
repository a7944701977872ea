/**
 * Rehearsals (issue #19, docs/rehearsal.md): an upgrade run on a scratch copy of this node's own state,
 * while the live node keeps running, to learn before the height whether the new binary migrates it.
 */
export { type AutoRehearsalOptions, startAutoRehearsal } from './auto.js';
export { followRehearsals } from './follow.js';
export { readRehearsals, recordRehearsal, type RehearsalPhases, type RehearsalReport, rehearsalsPath } from './record.js';
export { rehearse, type RehearseOptions } from './rehearse.js';
export { renderReport } from './report.js';
export { removeLeftoverRehearsals } from './scratch-dir.js';
