/**
 * Every error chainvisor expects carries a stable `code` (callers match on it, never on the text),
 * a `hint` that tells the operator what to do, and the process exit code the CLI should use.
 */

/** Exit codes of the `chainvisor` command, documented in the README. */
export const ExitCode = {
  ok: 0,
  /** An unexpected failure: a bug. The CLI prints the stack. */
  internal: 1,
  /** The command line itself is wrong (unknown command, missing argument). */
  usage: 64,
  /** The configuration (environment or config file) is invalid. */
  config: 78,
  /** An upgrade could not be applied: binary missing, download or verification refused, switch failed. */
  upgradeFailed: 79,
  /** The custom pre-upgrade script or the new binary's `pre-upgrade` failed. */
  preUpgradeFailed: 80,
  /** The data backup before an upgrade failed (for example a full disk). */
  backupFailed: 81,
  /** Another chainvisor already supervises this home (or a node it left could not be stopped). */
  homeLocked: 82,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export interface ChainvisorErrorOptions {
  hint?: string;
  cause?: unknown;
  exitCode?: ExitCodeValue;
}

export class ChainvisorError extends Error {
  readonly code: string;
  readonly hint: string | undefined;
  readonly exitCode: ExitCodeValue;

  constructor(code: string, message: string, options: ChainvisorErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ChainvisorError';
    this.code = code;
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? ExitCode.internal;
  }
}

/** The command line is wrong. */
export class UsageError extends ChainvisorError {
  constructor(message: string, hint = "run 'chainvisor help' for the commands and their arguments") {
    super('CHAINVISOR_USAGE', message, { hint, exitCode: ExitCode.usage });
    this.name = 'UsageError';
  }
}

/** One thing wrong with one setting. */
export interface ConfigProblem {
  /** The variable as the operator wrote it: `DAEMON_POLL_INTERVAL`, or `daemon_poll_interval in /etc/cv.json`. */
  setting: string;
  /** The offending value as written, when there is one. */
  value?: string;
  /** What is wrong and what is expected. */
  message: string;
}

/** Every configuration problem found, reported together. */
export class ConfigError extends ChainvisorError {
  readonly problems: readonly ConfigProblem[];

  constructor(problems: readonly ConfigProblem[]) {
    const lines = problems.map(
      (p) => `  - ${p.setting}${p.value === undefined ? '' : `=${JSON.stringify(p.value)}`}: ${p.message}`,
    );
    super(
      'CHAINVISOR_CONFIG_INVALID',
      `invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${lines.join('\n')}`,
      {
        hint: "fix the settings above in the environment or the config file, then run 'chainvisor config' to check",
        exitCode: ExitCode.config,
      },
    );
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** True when `error` is a Node.js system error with the given code (`ENOENT`, `EEXIST`, …). */
export function isErrno(error: unknown, code: string): error is NodeJS.ErrnoException {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}
