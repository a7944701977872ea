/** Step of the upgrade (compose.ts): `data/` kept (src/home/backup), unless UNSAFE_SKIP_BACKUP. */
import { backupBeforeUpgrade } from '../../home/backup/index.js';
import type { UpgradeTarget } from '../../home/layout/index.js';
import type { UpgradeContext } from './context.js';

export async function backUp({ plan }: UpgradeTarget, ctx: UpgradeContext): Promise<void> {
  const { config, layout, logger, signal } = ctx;
  if (!config.unsafeSkipBackup) {
    const events = ctx.events ? { events: ctx.events } : {};
    await backupBeforeUpgrade({ upgrade: { name: plan.name, height: plan.height }, config, layout, logger, signal, ...events });
  }
  signal.throwIfAborted();
}
