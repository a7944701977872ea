export { acceptNodeBinary, checkNodeBinary, refuseEmptyBinary, statBinary } from './binary-check.js';
export { type Current, readCurrent, readCurrentDir, removeLeftoverSwitchFiles, switchCurrent } from './current.js';
export { checkSourceBinary, installBinary, isFile } from './install.js';
export { installFolder, type InstallFolderOptions, moveAside } from './install-folder.js';
export { type BinaryDir, binaryDirPath, binaryPath, genesis, type Layout, layoutFor, planRecordPath, upgradeBinaryDir } from './paths.js';
export { checkLayoutShape, customPreUpgradeProblem, ensureCurrentLink, requireHome } from './shape.js';
export { planBinaryDir, planDir, planTarget, upgradeDirName, type UpgradeTarget } from './upgrade-dir.js';
export { removeLeftoverWorkFolders, type RemoveOptions, workFolderName } from './work-folders.js';
