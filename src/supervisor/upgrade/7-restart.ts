/**
 * Step 7 of the upgrade (compose.ts), restart: the new node is started by the run loop through the one
 * launch point of every start (../launch.ts), with what the sequence hands it (`Switched`): `current`
 * as switched, its binary already checked, and the next node's record, begun beside the sequence.
 * With DAEMON_RESTART_AFTER_UPGRADE=false chainvisor exits after the switch instead.
 */
import type { Config } from '../../config/index.js';
import type { Current, UpgradeTarget } from '../../home/layout/index.js';
import type { NodeTracker } from '../../home/lock/index.js';
import type { Logger } from '../../shared/log.js';

/** What an applied upgrade hands the next launch. */
export interface Switched {
  /** `current` as the sequence switched it, its binary checked (and warned about once). */
  current: Current;
  /** The next node's record, begun while the sequence ran (with DAEMON_RESTART_AFTER_UPGRADE and a tracker). */
  record: { binary: string; written: Promise<void> } | undefined;
}

/**
 * The next node's record, written beside the sequence rather than before the spawn (a file write is
 * a few trips through the thread pool, on the path of every switch). Once the old node is down: its
 * exit leaves the newer record in place.
 */
export function nextNodeRecord({ binary }: UpgradeTarget, tracker: NodeTracker | undefined, nodeStopped: Promise<unknown> | undefined): Switched['record'] {
  return (
    tracker && {
      binary,
      written: Promise.resolve(nodeStopped)
        .catch(() => undefined)
        .then(() => tracker.beforeSpawn(binary)),
    }
  );
}

/** DAEMON_RESTART_AFTER_UPGRADE: whether the new node is started; when it is not, chainvisor exits after the switch, and says so. */
export function restartsAfterSwitch(config: Pick<Config, 'restartAfterUpgrade'>, logger: Logger): boolean {
  if (config.restartAfterUpgrade) return true;
  logger.info('DAEMON_RESTART_AFTER_UPGRADE is false; exiting after the switch');
  return false;
}

/** A switch whose node will not be started (chainvisor stops, or a guard refuses it): its node record is removed. */
export async function abandonSwitch(switched: Switched | undefined, tracker: NodeTracker | undefined): Promise<void> {
  if (switched?.record === undefined) return;
  await switched.record.written.catch(() => undefined);
  await tracker?.notSpawned();
}
