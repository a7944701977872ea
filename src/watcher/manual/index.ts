/**
 * Manual upgrades: binary switches at an exact height without governance (cosmovisor v1.7's
 * `add-upgrade --upgrade-height` and `add-batch-upgrade`), queued in data/upgrade-info.json.batch and
 * applied by halting the old binary with its own --halt-height.
 */
export { byHeight, clashes, type ManualPlan, parseQueue, type QueueFiles, type QueueRead, readQueue, readQueued, serializeQueue, writeQueue } from './file.js';
export { type HaltArgs, haltArgs, operatorHaltHeight } from './halt-args.js';
export { type HeightSample, reachedHeight } from './height.js';
export { type ManualEntry, parseUpgradeList, readUpgradeFile } from './parse-list.js';
export { ManualUpgrades, type ManualUpgradesOptions, type ManualWatchHandlers } from './runner.js';
