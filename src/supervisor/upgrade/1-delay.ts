/** Step 1 of the upgrade (compose.ts), delay: DAEMON_RESTART_DELAY, once the node is down (not at start-up). */
import { setTimeout as sleep } from 'node:timers/promises';

import type { Look, UpgradeContext } from './context.js';

export async function restartDelay(look: Look, ctx: UpgradeContext, delay: boolean): Promise<void> {
  const { config, logger, signal } = ctx;
  if (!delay || config.restartDelay <= 0) return;
  logger.info({ ms: config.restartDelay }, 'waiting DAEMON_RESTART_DELAY');
  await sleep(config.restartDelay, undefined, { signal });
  look.stale = true;
}
