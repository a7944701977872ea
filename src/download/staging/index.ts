/**
 * Staging: the upgrade binary downloaded, verified and installed while the old node still runs, as soon
 * as governance schedules the plan, so the halt costs only the switch. `chainvisor run` runs the plan
 * watcher; `chainvisor prepare-upgrade` stages once.
 */
export { type PlanWatcher, type PlanWatcherOptions, startPlanWatcher, unansweredWait } from './plan-watch.js';
export { readStagedRecords, type StagedRecord } from './record.js';
export { stagePlan, type StageResult } from './stage.js';
