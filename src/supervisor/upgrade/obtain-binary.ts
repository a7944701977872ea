/**
 * Steps of the upgrade (compose.ts) for the new binary: `requireBinarySource` fails at once, before an
 * hour-long backup, when nothing can provide the binary; `obtainBinary` finds it installed by the
 * operator, or downloads and verifies it (src/download: the same path as staging before the halt).
 * A binary chainvisor staged (for a plan, a cancelled plan or a proposal) serves only a plan with its
 * Info (issue #45).
 */
import { setAsideOtherInfo } from '../../download/staging/index.js';
import { readCurrentDir, statBinary, type UpgradeTarget } from '../../home/layout/index.js';
import { ChainvisorError, ExitCode } from '../../shared/errors/index.js';
import type { UpgradeContext } from './context.js';

export async function requireBinarySource(target: UpgradeTarget, ctx: UpgradeContext): Promise<void> {
  const { config, layout, logger } = ctx;
  // Before anything looks for the binary: one chainvisor staged for another Info is not this plan's.
  const aside = await setAsideOtherInfo({ target, layout, logger });
  if (config.allowDownloadBinaries || config.customPreUpgrade !== '') return;
  if ((await statBinary(target.binary, ExitCode.config))?.isFile() !== true) throw await missingBinary(target, ctx, aside);
}

export async function obtainBinary(target: UpgradeTarget, ctx: UpgradeContext): Promise<void> {
  const { config, layout, logger, signal } = ctx;
  if ((await statBinary(target.binary, ExitCode.config))?.isFile() === true) return;
  if (!config.allowDownloadBinaries) throw await missingBinary(target, ctx);
  // Loaded when needed: an idle `run` keeps the HTTP and archive packages out of memory (test/release/at-rest).
  const download = ctx.download ?? (await import('../../download/index.js')).downloadUpgradeBinary;
  await download({ target, config, layout, logger, signal, ...(ctx.events ? { events: ctx.events } : {}) });
  signal.throwIfAborted();
}

/** `aside`: where the binary staged there for another Info was just moved. */
async function missingBinary({ plan, binary }: UpgradeTarget, ctx: UpgradeContext, aside?: string): Promise<ChainvisorError> {
  const current = await readCurrentDir(ctx.layout);
  const moved = aside === undefined ? '' : ` (the binary there was staged for another Info and was moved aside to ${aside})`;
  return new ChainvisorError(
    'CHAINVISOR_UPGRADE_BINARY_MISSING',
    `upgrade "${plan.name}" at height ${plan.height} needs ${binary}, which is not installed${moved}, and automatic download is off; current still points at ${current}`,
    {
      hint: `install it with 'chainvisor add-upgrade ${plan.name} <path-to-new-binary>' (or set DAEMON_ALLOW_DOWNLOAD_BINARIES=true), then start chainvisor again — the upgrade is applied at start-up`,
    },
  );
}
