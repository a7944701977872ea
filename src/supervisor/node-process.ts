/**
 * The node as a child process: started with the operator's arguments verbatim, the environment
 * inherited and stdin/stdout/stderr passed straight through (no pipes, so no line-length limits).
 */
import { constants } from 'node:os';
import { execa } from 'execa';
import { ChainvisorError, ExitCode } from '../errors/index.js';
import type { Logger } from '../log/index.js';

export interface ExitStatus {
  code: number | undefined;
  signal: NodeJS.Signals | undefined;
}

/** The shell convention: the code, or 128 + the signal's number when killed by a signal. */
export function exitCodeOf(status: ExitStatus): number {
  if (status.signal !== undefined) return 128 + (constants.signals[status.signal] ?? 0);
  return status.code ?? ExitCode.internal;
}

export function describeExit(status: ExitStatus): string {
  return status.signal === undefined ? `exit code ${status.code}` : `signal ${status.signal}`;
}

export interface NodeProcess {
  pid: number | undefined;
  /** Resolves when the node has exited, however that happened. */
  exited: Promise<ExitStatus>;
  hasExited(): boolean;
  signal(signal: NodeJS.Signals): void;
  /**
   * SIGTERM, then SIGKILL after `graceMs`. `graceMs` 0 means: kill at once when `killAtZero`, else wait
   * for the node however long it takes (a service manager has its own stop timeout).
   */
  stop(options: { graceMs: number; killAtZero: boolean }): Promise<ExitStatus>;
}

/** `env` is added to chainvisor's own environment, which the node inherits. */
export function startNode(binary: string, args: readonly string[], logger: Logger, env: Record<string, string> = {}): NodeProcess {
  const child = execa(binary, args, {
    env,
    stdio: 'inherit',
    reject: false,
    cleanup: true,
    forceKillAfterDelay: false,
  });
  let done = false;
  const exited: Promise<ExitStatus> = child.then((result) => {
    done = true;
    if (result.exitCode === undefined && result.signal === undefined) {
      const cause = result.cause as NodeJS.ErrnoException | undefined;
      throw new ChainvisorError('CHAINVISOR_NODE_SPAWN_FAILED', `could not start ${binary}: ${cause?.code ?? ''} ${cause?.message ?? result.message}`.trim(), {
        hint:
          cause?.code === 'EACCES'
            ? `make it executable: chmod +x ${binary}`
            : 'check that the file is a program for this machine (right architecture, interpreter present)',
        cause,
        exitCode: ExitCode.upgradeFailed,
      });
    }
    return { code: result.exitCode, signal: result.signal };
  });
  const node: NodeProcess = {
    pid: child.pid,
    exited,
    hasExited: () => done,
    signal(signal) {
      if (!done) child.kill(signal);
    },
    async stop({ graceMs, killAtZero }) {
      if (done) return exited;
      if (graceMs === 0 && killAtZero) {
        logger.info({ pid: child.pid }, 'stopping node (SIGKILL; DAEMON_SHUTDOWN_GRACE is 0)');
        child.kill('SIGKILL');
        return exited;
      }
      logger.info({ pid: child.pid, graceMs }, 'stopping node (SIGTERM)');
      child.kill('SIGTERM');
      if (graceMs > 0) {
        const timer = setTimeout(() => {
          if (!done) {
            logger.warn({ pid: child.pid, graceMs }, 'node still running after DAEMON_SHUTDOWN_GRACE; sending SIGKILL');
            child.kill('SIGKILL');
          }
        }, graceMs);
        void exited.finally(() => clearTimeout(timer)).catch(() => undefined);
      }
      return exited;
    },
  };
  return node;
}
