/**
 * Step 5 of the upgrade (compose.ts), pre-upgrade: `<new binary> pre-upgrade`, with the SDK's
 * exit-code contract, while the plan record is committed:
 *   0 ok · 1 not implemented (ok) · 30 failed · 31 failed, retry (DAEMON_PREUPGRADE_MAX_RETRIES)
 * Any other code is a failure (cosmovisor counted it as success).
 */
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';

import { acceptNodeBinary, layoutFsError, type UpgradeTarget } from '../../home/layout/index.js';
import { ChainvisorError, ExitCode, isFsError } from '../../shared/errors/index.js';
import type { Logger } from '../../shared/log.js';
import type { Standby } from '../../shared/proc/index.js';
import type { Look, UpgradeContext } from './context.js';
import type { PlanRecord } from './plan-record.js';
import { runLogged } from './run-logged.js';

/** pre-upgrade: `<new binary> pre-upgrade`, while the plan record is committed; returns the record's flush. */
export async function preUpgrade(
  { plan, binary }: UpgradeTarget,
  look: Look,
  record: PlanRecord,
  ctx: UpgradeContext,
  standby: Standby | undefined,
): Promise<() => Promise<void>> {
  const { config, logger, signal } = ctx;
  const prepare = async (found: Stats | undefined) => {
    if (!acceptNodeBinary(binary, found, { logger, when: `switching to upgrade "${plan.name}"`, exitCode: ExitCode.upgradeFailed })) {
      throw new ChainvisorError('CHAINVISOR_UPGRADE_BINARY_MISSING', `${binary} is not a regular file; current was not switched`, {
        hint: `put the node binary of upgrade "${plan.name}" there (chainvisor add-upgrade ${plan.name} <path> --force), then start chainvisor again — the upgrade is applied at start-up`,
      });
    }
    await makeExecutable(binary, found as Stats);
    await runPreUpgrade({ binary, maxRetries: config.preUpgradeMaxRetries, logger, standby, args: ctx.preUpgradeArgs ?? [] });
  };
  const [prepared, recorded] = await Promise.allSettled([prepare(look.stats), record.committed]);
  if (prepared.status === 'rejected') throw prepared.reason;
  if (recorded.status === 'rejected') throw recorded.reason;
  signal.throwIfAborted();
  return recorded.value;
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

export interface PreUpgradeOptions {
  binary: string;
  maxRetries: number;
  logger: Logger;
  /** A standby with piped output (src/shared/proc/standby.ts): the first attempt runs in it. */
  standby?: Standby | undefined;
  /** After `pre-upgrade` (a rehearsal names its scratch home: `--home <scratch>`); none for the live node, as cosmovisor. */
  args?: readonly string[];
}

export async function runPreUpgrade({ binary, maxRetries, logger, standby, args = [] }: PreUpgradeOptions): Promise<void> {
  logger.info({ binary }, 'running pre-upgrade');
  for (let attempt = 1; ; attempt++) {
    const result = await runLogged(binary, ['pre-upgrade', ...args], {
      logger,
      source: 'pre-upgrade',
      standby: attempt === 1 && args.length === 0 ? standby : undefined,
    });
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
