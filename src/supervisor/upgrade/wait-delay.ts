/** Step of the upgrade (compose.ts): DAEMON_RESTART_DELAY, once the node is down (not at start-up). */
import { setTimeout as sleep } from 'node:timers/promises';

import type { UpgradeContext } from './context.js';

export async function waitDelay({ config, logger, signal }: UpgradeContext, delay: boolean): Promise<void> {
  if (!delay || config.restartDelay <= 0) return;
  logger.info({ ms: config.restartDelay }, 'waiting DAEMON_RESTART_DELAY');
  await sleep(config.restartDelay, undefined, { signal });
}
