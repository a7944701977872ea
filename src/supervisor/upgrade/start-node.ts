/**
 * Step of the upgrade (compose.ts): the new node started through the one launch point of every start
 * (../node/launch.ts), `current` as switched. With DAEMON_RESTART_AFTER_UPGRADE=false chainvisor exits
 * after the switch instead, and says so.
 */
import type { Current } from '../../home/layout/index.js';
import type { ManualPlan, ManualUpgrades } from '../../watcher/manual/index.js';
import { type LaunchContext, type Launched, launchNode } from '../launch.js';
import type { UpgradeContext } from './context.js';
import type { UpgradeFollows } from './follow.js';

export interface StartOptions {
  launching: LaunchContext;
  /** The node's arguments as the operator gave them; the manual queue adds its --halt-height. */
  args: readonly string[];
  queue: ManualUpgrades;
  /** The manual upgrade this sequence applies: taken off the queue before the start (dequeue-manual.ts). */
  manual?: ManualPlan | undefined;
  /** The node's environment (../node nodeEnvironment). */
  env: NodeJS.ProcessEnv | undefined;
  /** The follow of the network, begun once the node is started (follow.ts). */
  follows: UpgradeFollows;
}

/** Undefined when no node is started: DAEMON_RESTART_AFTER_UPGRADE=false, or chainvisor stopped first. */
export async function startNode(current: Current, start: StartOptions, { config, logger }: UpgradeContext): Promise<Launched | undefined> {
  if (!config.restartAfterUpgrade) {
    logger.info('DAEMON_RESTART_AFTER_UPGRADE is false; exiting after the switch');
    return undefined;
  }
  return launchNode(start.launching, { switched: current, first: false, args: start.queue.argsFor(start.args), env: start.env });
}
