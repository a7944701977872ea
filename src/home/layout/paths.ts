/**
 * The cosmovisor folder layout, which chainvisor keeps byte for byte so that an existing home works
 * unchanged, and chainvisor's own runtime files, in one hidden folder that cosmovisor ignores
 * (`$DAEMON_HOME/cosmovisor/.chainvisor/`).
 * Why, and the rest of its rules: docs/design/home-layout.md#homelayoutpathsts.
 */
import path from 'node:path';

export interface Layout {
  home: string;
  /** DAEMON_NAME: the binary's file name. */
  name: string;
  /** `$DAEMON_HOME/cosmovisor`. */
  root: string;
  genesisDir: string;
  upgradesDir: string;
  currentLink: string;
  dataDir: string;
  /** Where the node writes the plan when it halts. */
  upgradeInfoFile: string;
  /** `$DAEMON_HOME/data/upgrade-info.json.batch`: manual upgrades queued at exact heights (cosmovisor v1.7). */
  batchFile: string;
  /** `$DAEMON_HOME/cosmovisor/.chainvisor`: chainvisor's runtime state (created on demand). */
  stateDir: string;
  /**
   * Whether a plan's folder name is lower-cased (unless COSMOVISOR_DISABLE_RECASE): the setting read once,
   * here, and applied by planTarget / planDir (upgrade-dir.ts).
   */
  recase: boolean;
}

/** A binary folder relative to `root`: `genesis` or `upgrades/<dir>`. */
export type BinaryDir = string;

export const genesis: BinaryDir = 'genesis';

export function layoutFor(settings: { home: string; name: string; disableRecase?: boolean }): Layout {
  const root = path.join(settings.home, 'cosmovisor');
  return {
    home: settings.home,
    name: settings.name,
    root,
    genesisDir: path.join(root, 'genesis'),
    upgradesDir: path.join(root, 'upgrades'),
    currentLink: path.join(root, 'current'),
    dataDir: path.join(settings.home, 'data'),
    upgradeInfoFile: path.join(settings.home, 'data', 'upgrade-info.json'),
    batchFile: path.join(settings.home, 'data', 'upgrade-info.json.batch'),
    stateDir: path.join(root, '.chainvisor'),
    recase: settings.disableRecase !== true,
  };
}

export function upgradeBinaryDir(dirName: string): BinaryDir {
  return `upgrades/${dirName}`;
}

/** Absolute folder of a binary dir. */
export function binaryDirPath(layout: Layout, dir: BinaryDir): string {
  return path.join(layout.root, dir);
}

/** Absolute path of the node binary inside a binary dir. */
export function binaryPath(layout: Layout, dir: BinaryDir): string {
  return path.join(layout.root, dir, 'bin', layout.name);
}

/** The copy of the plan kept beside an upgrade's binary. */
export function planRecordPath(layout: Layout, dir: BinaryDir): string {
  return path.join(layout.root, dir, 'upgrade-info.json');
}
