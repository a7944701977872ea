/**
 * Data backups before an upgrade: modes (copy, reflink, link), free-space check, crash-safe partial
 * folders, one backup per upgrade, and pruning of old ones. See docs/backup.md.
 */
export { backupData, type BackupOptions, type BackupResult } from './backup.js';
export { backupBeforeUpgrade, type BackupBeforeUpgradeOptions } from './before-upgrade.js';
export { copyWhole } from './copy.js';
export { chooseMode, type RequestedMode } from './mode.js';
export { backupMadeAt } from './names.js';
export { removePartialBackups } from './partials.js';
export { type BackupMode, createPlacer, isImmutableTable, type Placer } from './place.js';
export { pruneBackups } from './prune.js';
export { type MadeBackup, readMadeBackups } from './record.js';
export { restoreData, type RestoreOptions } from './restore.js';
export { pendingRestore, type RestoreJournal, type RestoreStep, resumeInterruptedRestore } from './restore-journal.js';
export { type PlanOptions, planRestore, type RestorePlan } from './restore-plan.js';
export { describeQueue, type QueuePlan } from './restore-queue.js';
export { type RestoreRecord } from './restore-record.js';
export { type RestoreSigning, type SignSide } from './restore-signing.js';
export { bytesNeeded, type StatfsFn } from './space.js';
export { readTree, type Tree, type TreeEntry } from './tree.js';
