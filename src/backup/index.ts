/**
 * Data backups before an upgrade: modes (copy, reflink, link), free-space check, crash-safe partial
 * folders, one backup per upgrade, and pruning of old ones. See docs/backup.md.
 */
export { backupData, type BackupOptions, type BackupResult } from './backup.js';
export { backupBeforeUpgrade, type BackupBeforeUpgradeOptions } from './before-upgrade.js';
export { removePartialBackups } from './partials.js';
export { pruneBackups } from './prune.js';
export { backupName } from './names.js';
export { type BackupMode, type Placer, createPlacer, isImmutableTable } from './place.js';
export { type RequestedMode, chooseMode } from './mode.js';
export { type MadeBackup, readMadeBackups } from './record.js';
export { type StatfsFn, bytesNeeded } from './space.js';
export { type Tree, type TreeEntry, readTree } from './tree.js';
export { copyWhole } from './copy.js';
