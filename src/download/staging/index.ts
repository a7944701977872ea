/**
 * Staging: the upgrade binary downloaded, verified and installed while the old node still runs, as soon
 * as governance schedules the plan, so the halt costs only the switch. Under `chainvisor run` staging
 * listens to what the plan watch (src/watcher/plan-watch.ts) says on the bus; `chainvisor prepare-upgrade`
 * stages once.
 */
export { type Staging, type StagingOptions, startStaging } from './listen.js';
export { readStagedRecords, type StagedRecord, updateStagedRecord } from './record.js';
export { markNotPlanned, setAsideOtherInfo, type StageOptions, stagePlan, type StageResult } from './stage.js';
