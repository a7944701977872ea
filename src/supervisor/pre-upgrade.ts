/**
 * The custom pre-upgrade and pre-upgrade steps of the upgrade sequence (sequence.ts): the operator's
 * COSMOVISOR_CUSTOM_PREUPGRADE script, and the new binary's
 * `pre-upgrade` command with the SDK's exit-code contract:
 *   0 ok · 1 not implemented (ok) · 30 failed · 31 failed, retry (DAEMON_PREUPGRADE_MAX_RETRIES)
 * Any other code is a failure (cosmovisor counted it as success).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import type { Readable } from 'node:stream';

import type { Plan } from '../chain/plan/index.js';
import { ChainvisorError, isErrno } from '../shared/errors/index.js';
import type { Logger } from '../shared/log.js';
import { eachLine, type Standby } from '../shared/proc/index.js';

export interface CustomPreUpgradeOptions {
  script: string;
  plan: Plan;
  /** `$DAEMON_HOME`, the script's working folder. */
  cwd: string;
  logger: Logger;
}

/** Longest line of a script's output copied into one log line; the rest is cut (a 64 KiB line once froze cosmovisor). */
const maxLoggedLine = 8192;

interface RunResult {
  exitCode: number | undefined;
  signal: NodeJS.Signals | undefined;
  /** Set when the program could not be started. */
  cause: NodeJS.ErrnoException | undefined;
}

/**
 * Runs a helper program with its output copied line by line into chainvisor's log (stderr), never to
 * stdout: stdout carries the node's output only, for operators who parse it. node:child_process, not
 * execa: `pre-upgrade` runs inside every switch, where execa's per-spawn cost is measurable (bench:switch).
 */
function runLogged(file: string, args: string[], options: { cwd?: string; logger: Logger; source: string; standby?: Standby | undefined }): Promise<RunResult> {
  return new Promise((resolve) => {
    // A standby runs the program in chainvisor's own working folder: not used when another is asked for.
    const standby = options.cwd === undefined ? options.standby : undefined;
    const child = standby?.take(file, args) ?? spawn(file, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let cause: NodeJS.ErrnoException | undefined;
    child.on('error', (error: NodeJS.ErrnoException) => {
      cause ??= error;
    });
    const copy = (stream: Readable | null, name: 'stdout' | 'stderr') => {
      if (stream === null) return;
      eachLine(stream, maxLoggedLine, (line, length) => {
        const text = length > maxLoggedLine ? `${line}… (${length} characters, cut)` : line;
        options.logger.info({ source: options.source, stream: name }, text);
      });
    };
    copy(child.stdout, 'stdout');
    copy(child.stderr, 'stderr');
    // 'close' follows both the exit and the end of the output (every line logged); a failed spawn
    // emits 'error' then 'close' with the negative errno as its code.
    child.on('close', (code, signal) => {
      if (cause && child.pid === undefined) resolve({ exitCode: undefined, signal: undefined, cause });
      else resolve({ exitCode: code ?? undefined, signal: signal ?? undefined, cause: undefined });
    });
  });
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

export async function runCustomPreUpgrade({ script, plan, cwd, logger }: CustomPreUpgradeOptions): Promise<void> {
  logger.info({ script, upgrade: plan.name, height: plan.height }, 'running custom pre-upgrade script');
  await ensureUserExecutable(script, logger);
  const result = await runLogged(script, [plan.name, String(plan.height)], { cwd, logger, source: 'custom-pre-upgrade' });
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
