/**
 * Manual upgrades: binary switches at an exact height without governance (cosmovisor v1.7's
 * `add-upgrade --upgrade-height` and `add-batch-upgrade`), queued in data/upgrade-info.json.batch and
 * applied by halting the old binary with its own --halt-height.
 */
export { type ManualPlan, type QueueRead, parseQueue, readQueue, readQueued, writeQueue, serializeQueue } from './file.js';
export { type ManualEntry, parseUpgradeList, parseUpgradeCsv, readUpgradeFile } from './parse-list.js';
export { type ScheduleOptions, type ScheduleResult, scheduleUpgrades } from './schedule.js';
export { type HaltArgs, haltArgs, operatorHaltHeight, isStart } from './halt-args.js';
export { ManualUpgrades, type ManualUpgradesOptions, type ManualWatchHandlers } from './runner.js';
export { type HeightSample, reachedHeight } from './height.js';
