/**
 * Step of the upgrade (compose.ts): the operator's COSMOVISOR_CUSTOM_PREUPGRADE script, run with the
 * upgrade's name and height before the binary is obtained (it may be what installs the binary).
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import type { Plan } from '../../chain/index.js';
import type { UpgradeTarget } from '../../home/layout/index.js';
import { ChainvisorError, isErrno } from '../../shared/errors/index.js';
import type { Logger } from '../../shared/log.js';
import type { UpgradeContext } from './context.js';
import { runLogged } from './run-logged.js';

export async function runCustomPreUpgrade({ plan }: UpgradeTarget, ctx: UpgradeContext): Promise<void> {
  const { config, layout, logger, signal } = ctx;
  if (config.customPreUpgrade === '') return;
  await runScript({ script: path.join(layout.root, config.customPreUpgrade), plan, cwd: layout.home, logger, signal });
  signal.throwIfAborted();
}

interface ScriptOptions {
  script: string;
  plan: Plan;
  /** `$DAEMON_HOME`, the script's working folder. */
  cwd: string;
  logger: Logger;
  signal: AbortSignal;
}

/** cosmovisor makes the custom script executable (u+x) rather than refusing it; so does chainvisor, and says so. */
async function ensureUserExecutable(script: string, logger: Logger): Promise<void> {
  let mode: number;
  try {
    mode = (await fs.stat(script)).mode;
  } catch (error) {
    if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR')) return; // reported as "does not exist" below
    throw error;
  }
  if ((mode & 0o100) !== 0) return;
  try {
    await fs.chmod(script, mode | 0o100);
    logger.warn({ script, mode: (mode & 0o7777).toString(8) }, 'the custom pre-upgrade script was not executable: added the execute bit (u+x)');
  } catch (error) {
    logger.warn({ script, err: error }, 'the custom pre-upgrade script is not executable and chmod u+x failed');
  }
}

async function runScript({ script, plan, cwd, logger, signal }: ScriptOptions): Promise<void> {
  logger.info({ script, upgrade: plan.name, height: plan.height }, 'running custom pre-upgrade script');
  await ensureUserExecutable(script, logger);
  const result = await runLogged(script, [plan.name, String(plan.height)], { cwd, logger, source: 'custom-pre-upgrade', signal });
  if (result.exitCode === 0) return;
  const cause = result.cause;
  const why =
    result.exitCode === undefined && result.signal === undefined
      ? cause?.code === 'ENOENT'
        ? 'the script does not exist'
        : `it could not be started (${cause?.code ?? cause?.message ?? 'unknown error'})`
      : result.signal !== undefined
        ? `it was killed by ${result.signal}`
        : `it exited with code ${result.exitCode}`;
  throw new ChainvisorError(
    'CHAINVISOR_CUSTOM_PREUPGRADE_FAILED',
    `custom pre-upgrade script ${script} failed for upgrade "${plan.name}": ${why}; nothing was switched`,
    {
      hint:
        cause?.code === 'EACCES'
          ? `make it executable (chmod +x ${script}), then start chainvisor again`
          : `fix the script (or unset COSMOVISOR_CUSTOM_PREUPGRADE), then start chainvisor again — the upgrade is applied at start-up`,
    },
  );
}
