/**
 * Plan name → folder name under `upgrades/`, exactly as cosmovisor does it: lower-cased unless
 * COSMOVISOR_DISABLE_RECASE, then escaped like Go's url.PathEscape (`a b` → `a%20b`, `a/b` → `a%2Fb`).
 */
import type { Plan } from '../../chain/index.js';
import { ChainvisorError } from '../../shared/errors/index.js';
import { type BinaryDir, binaryPath, type Layout, upgradeBinaryDir } from './paths.js';

/** Bytes Go's PathEscape leaves as they are: unreserved characters and `$ & + : = @`. */
const keep = /[A-Za-z0-9\-_.~$&+:=@]/;

function pathEscape(segment: string): string {
  let out = '';
  for (const char of segment) {
    if (keep.test(char)) {
      out += char;
    } else {
      for (const byte of Buffer.from(char, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return out;
}

export function upgradeDirName(planName: string, options: { recase: boolean }): string {
  if (planName === '' || planName === '.' || planName === '..' || /[\u0000-\u001f\u007f]/.test(planName)) {
    throw new ChainvisorError('CHAINVISOR_BAD_PLAN_NAME', `the upgrade name ${JSON.stringify(planName)} cannot be used as a folder name`, {
      hint: `no folder under upgrades/ can hold this upgrade's binary: names must be non-empty, not "." or "..", and free of control characters. The name comes from the chain's upgrade proposal and cannot be changed here: tell the chain's developers. To go on at the halt meanwhile, by hand: install the release binary under a name that can be a folder (chainvisor add-upgrade <short-name> <path>), ln -sfn upgrades/<short-name> $DAEMON_HOME/cosmovisor/current, move data/upgrade-info.json aside, start chainvisor`,
    });
  }
  const dir = pathEscape(options.recase ? planName.toLowerCase() : planName);
  const bytes = Buffer.byteLength(dir);
  if (bytes > maxNameBytes) {
    throw new ChainvisorError(
      'CHAINVISOR_BAD_PLAN_NAME',
      `the upgrade name ${JSON.stringify(planName)} (${[...planName].length} characters) makes a folder name of ${bytes} bytes under upgrades/, more than the ${maxNameBytes} a file name may have`,
      {
        hint:
          "no folder can hold this upgrade's binary, so neither add-upgrade nor a download can install it. The name comes from the chain's upgrade proposal and " +
          `cannot be changed here (COSMOVISOR_DISABLE_RECASE does not shorten it); tell the chain's developers (at most ${maxNameBytes} bytes once escaped: letters, digits and -_.~ count one byte, other characters 3 to 12). ` +
          'To go on at the halt meanwhile, by hand: install the release binary under a short name (chainvisor add-upgrade <short-name> <path>), ln -sfn upgrades/<short-name> $DAEMON_HOME/cosmovisor/current, move data/upgrade-info.json aside, start chainvisor',
      },
    );
  }
  return dir;
}

/** The longest file name Linux filesystems (ext4, XFS, btrfs, tmpfs) and macOS accept, in bytes. */
const maxNameBytes = 255;

/**
 * The folder of a plan's binary, `upgrades/<name>`: the one place where a plan name becomes its
 * folder (recased unless COSMOVISOR_DISABLE_RECASE, escaped, length-checked).
 */
export function planBinaryDir(planName: string, options: { recase: boolean }): BinaryDir {
  return upgradeBinaryDir(upgradeDirName(planName, options));
}

/**
 * A plan's target, computed once with the layout's recase rule and handed down the upgrade's path:
 * its folder name under `upgrades/` (`name`), that folder relative to the root (`dir`, `upgrades/<name>`)
 * and the binary's absolute path. Throws CHAINVISOR_BAD_PLAN_NAME when the name cannot be a folder.
 */
export interface UpgradeTarget {
  plan: Plan;
  /** The folder name under `upgrades/`: recased unless COSMOVISOR_DISABLE_RECASE, escaped. */
  name: string;
  /** `upgrades/<name>`, relative to the layout's root. */
  dir: BinaryDir;
  /** The node binary inside it. */
  binary: string;
}

export function planTarget(layout: Layout, plan: Plan): UpgradeTarget {
  const name = upgradeDirName(plan.name, { recase: layout.recase });
  const dir = upgradeBinaryDir(name);
  return { plan, name, dir, binary: binaryPath(layout, dir) };
}

/** The folder of the plan named `planName` (`upgrades/<dir>`), with the layout's recase rule. */
export function planDir(layout: Layout, planName: string): BinaryDir {
  return planBinaryDir(planName, { recase: layout.recase });
}
