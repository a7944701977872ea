/**
 * Step of the upgrade (compose.ts): `<new binary> pre-upgrade`, with the SDK's exit-code contract:
 *   0 ok · 1 not implemented (ok) · 30 failed · 31 failed, retry (DAEMON_PREUPGRADE_MAX_RETRIES)
 * Any other code is a failure (cosmovisor counted it as success).
 */
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';

import { acceptNodeBinary, statBinary, type UpgradeTarget } from '../../home/layout/index.js';
import { ChainvisorError, ExitCode, isFsError, layoutFsError } from '../../shared/errors/index.js';
import type { Logger } from '../../shared/log.js';
import type { UpgradeContext } from './context.js';
import { runLogged } from './run-logged.js';

export async function runPreUpgrade({ plan, binary }: UpgradeTarget, ctx: UpgradeContext): Promise<void> {
  const { config, logger, signal } = ctx;
  const found = await statBinary(binary, ExitCode.upgradeFailed);
  if (!acceptNodeBinary(binary, found, { logger, when: `switching to upgrade "${plan.name}"`, exitCode: ExitCode.upgradeFailed })) {
    throw new ChainvisorError('CHAINVISOR_UPGRADE_BINARY_MISSING', `${binary} is not a regular file; current was not switched`, {
      hint: `put the node binary of upgrade "${plan.name}" there (chainvisor add-upgrade ${plan.name} <path> --force), then start chainvisor again — the upgrade is applied at start-up`,
    });
  }
  await makeExecutable(binary, found as Stats);
  await runWithRetries({ binary, maxRetries: config.preUpgradeMaxRetries, logger, args: ctx.preUpgradeArgs ?? [], signal });
  signal.throwIfAborted();
}

/** cosmovisor marks the binary executable rather than refusing it; so does chainvisor. */
async function makeExecutable(binary: string, { mode }: Stats): Promise<void> {
  if ((mode & 0o111) === 0o111) return;
  try {
    await fs.chmod(binary, mode | 0o111);
  } catch (error) {
    throw isFsError(error) ? layoutFsError(binary, 'make executable', error, ExitCode.upgradeFailed) : error;
  }
}

interface PreUpgradeOptions {
  binary: string;
  maxRetries: number;
  logger: Logger;
  /** After `pre-upgrade` (a rehearsal names its scratch home: `--home <scratch>`); none for the live node, as cosmovisor. */
  args: readonly string[];
  signal: AbortSignal;
}

async function runWithRetries({ binary, maxRetries, logger, args, signal }: PreUpgradeOptions): Promise<void> {
  logger.info({ binary }, 'running pre-upgrade');
  for (let attempt = 1; ; attempt++) {
    const result = await runLogged(binary, ['pre-upgrade', ...args], { logger, source: 'pre-upgrade', signal });
    const code = result.exitCode;
    if (code === 0) {
      logger.info({ binary }, 'pre-upgrade succeeded');
      return;
    }
    if (code === 1) {
      logger.info({ binary }, 'pre-upgrade not implemented by the binary (exit 1); continuing');
      return;
    }
    if (code === 31 && attempt <= maxRetries) {
      logger.warn({ binary, attempt, maxRetries }, 'pre-upgrade asked for a retry (exit 31)');
      continue;
    }
    const why =
      code === 30
        ? 'it exited 30 (failed)'
        : code === 31
          ? `it exited 31 (retry) ${attempt} time${attempt === 1 ? '' : 's'}, more than DAEMON_PREUPGRADE_MAX_RETRIES=${maxRetries} allows`
          : code === undefined
            ? result.signal !== undefined
              ? `it was killed by ${result.signal}`
              : `it could not be started (${result.cause?.message ?? 'unknown error'})`
            : code === 126 || code === 127
              ? `it exited ${code}, the code of a program that could not be run (not executable, not a program for this machine, or its interpreter missing: the reason is in the log above)`
              : `it exited ${code}, which is not a code of the pre-upgrade contract (0, 1, 30, 31)`;
    throw new ChainvisorError('CHAINVISOR_PREUPGRADE_FAILED', `${binary} pre-upgrade failed: ${why}; nothing was switched`, {
      hint: "read the output of pre-upgrade in chainvisor's log above (source: pre-upgrade), fix the cause, then start chainvisor again — the upgrade is applied at start-up",
    });
  }
}
