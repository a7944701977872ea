/**
 * RunMigrations: what an upgrade handler usually does — bring every module from its stored consensus
 * version to the version of the binary's code, initialising modules that are new.
 */
import type { UpgradeHandler, VersionMap } from './types.js';

export function runMigrations(target: VersionMap): UpgradeHandler {
  return async (ctx, _plan, fromVM) => {
    const updated: Record<string, number> = { ...fromVM };
    for (const [module, version] of Object.entries(target)) {
      const from = fromVM[module];
      if (from === undefined) {
        ctx.log.info(`adding a new module: ${module}`, { module: 'x/upgrade', version });
      } else if (from < version) {
        ctx.log.info(`migrating module ${module} from version ${from} to version ${version}`, { module: 'x/upgrade' });
      } else if (from > version) {
        throw new Error(`module ${module} is at consensus version ${from}, newer than this binary's ${version}`);
      }
      updated[module] = version;
    }
    return updated;
  };
}
