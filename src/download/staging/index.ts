/**
 * Staging: the upgrade binary downloaded, verified and installed while the old node still runs, as soon
 * as governance schedules the plan, so the halt costs only the switch. Under `chainvisor run` the plan
 * watch (src/watcher/plan-watch.ts) reads the chain and tells the stager; `chainvisor prepare-upgrade`
 * stages once.
 */
export { readStagedRecords, type StagedRecord } from './record.js';
export { stagePlan, type StageResult } from './stage.js';
export { createStager, type Stager, type StagerOptions } from './stager.js';
