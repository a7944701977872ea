/**
 * Progress of long transfers (downloads — which also extract tar archives as the bytes arrive — and
 * backups): producers emit throttled `*-progress` events, one view renders them.
 */
export { createProgressEmitter, type ProgressData, type ProgressEmitter, progressOnBus } from './emitter.js';
export { formatSeconds } from './format.js';
export { type ProgressViewOptions, startProgressView } from './view.js';
