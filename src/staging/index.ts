/**
 * Staging: the upgrade binary downloaded, verified and installed while the old node still runs, as soon
 * as governance schedules the plan, so the halt costs only the switch. `chainvisor run` runs the plan
 * watcher; `chainvisor prepare-upgrade` stages once.
 */
export { type PlanWatcher, type PlanWatcherOptions, startPlanWatcher, unansweredWait } from './plan-watch.js';
export { type StageResult, stagePlan } from './stage.js';
export { type StagedRecord, readStagedRecords } from './record.js';
