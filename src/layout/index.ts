export { type Layout, type BinaryDir, genesis, layoutFor, upgradeBinaryDir, binaryDirPath, binaryPath, planRecordPath } from './paths.js';
export { upgradeDirName, pathEscape } from './upgrade-dir.js';
export { type Current, type PreparedSwitch, prepareSwitch, readCurrent, readCurrentDir, removeLeftoverSwitchFiles, switchCurrent } from './current.js';
export { installBinary, isFile, checkSourceBinary } from './install.js';
export { checkLayoutShape, customPreUpgradeProblem, requireHome, ensureCurrentLink } from './shape.js';
export { type StagedFile, writeFileAtomic, copyFileAtomic, stageFile, tempSibling, fsyncDir, replaceFile, makeFolders } from './atomic.js';
export { acceptNodeBinary, checkNodeBinary, refuseEmptyBinary, statBinary, warnIfWritableByOthers } from './binary-check.js';
export { type RemoveOptions, removeLeftoverWorkFolders, workFolderName, workFolderPrefix } from './work-folders.js';
export { isFsError, layoutFsError } from './fs-error.js';
