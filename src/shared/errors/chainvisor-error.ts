/**
 * Every error chainvisor expects carries a stable `code` (callers match on it, never on the text),
 * a `hint` that tells the operator what to do, and the process exit code the CLI should use.
 */

import { errorCatalogue, type ErrorCode, type ErrorSpec } from './catalogue.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';

export interface ChainvisorErrorOptions {
  /** What to do, when the site knows better than the catalogue's default hint. */
  hint?: string;
  cause?: unknown;
  /**
   * Only for a code whose catalogue entry lists other exit codes (`alsoExit`), and only one of those;
   * otherwise the exit code is the catalogue's.
   */
  exitCode?: ExitCodeValue;
}

export class ChainvisorError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly exitCode: ExitCodeValue;

  constructor(code: ErrorCode, message: string, options: ChainvisorErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ChainvisorError';
    this.code = code;
    // Undefined only for a code from untyped code (a bug): then no hint and exit 1.
    const spec = errorCatalogue[code] as ErrorSpec | undefined;
    this.hint = options.hint ?? spec?.hint;
    this.exitCode = options.exitCode ?? spec?.exit ?? ExitCode.internal;
  }
}

/**
 * The errors of an upgrade's download, verification and installation (src/download, src/verify): a
 * name, a code (exit 79 from the catalogue), a message, and the fields callers and tests read
 * (`url`, `expected`, …; declared by each subclass with `declare readonly`).
 */
export class UpgradeError extends ChainvisorError {
  constructor(name: string, code: ErrorCode, message: string, options: { hint?: string; cause?: unknown } = {}, fields: object = {}) {
    super(code, message, options);
    this.name = name;
    Object.assign(this, fields);
  }
}

/** The command line is wrong. */
export class UsageError extends ChainvisorError {
  constructor(message: string, hint = "run 'chainvisor help' for the commands and their arguments") {
    super('CHAINVISOR_USAGE', message, { hint });
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
    const lines = problems.map((p) => `  - ${p.setting}${p.value === undefined ? '' : `=${JSON.stringify(p.value)}`}: ${p.message}`);
    super('CHAINVISOR_CONFIG_INVALID', `invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${lines.join('\n')}`, {
      hint: "fix the settings above in the environment or the config file, then run 'chainvisor config' to check",
    });
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** True when `error` is a Node.js system error with the given code (`ENOENT`, `EEXIST`, …). */
export function isErrno(error: unknown, code: string): error is NodeJS.ErrnoException {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}

/**
 * True for an error from a system call of this host (it carries an errno code such as ENOSPC or
 * ELOOP): a disk, a permission, a path, as opposed to a fault of an archive, a server or chainvisor.
 */
export function isFsError(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return error instanceof Error && typeof code === 'string' && /^E[A-Z0-9]+$/.test(code);
}
