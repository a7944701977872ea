/**
 * The node as a child process: started with the operator's arguments verbatim, the environment
 * inherited and stdin/stdout/stderr passed straight through (no pipes, so no line-length limits).
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

import { ChainvisorError, ExitCode } from '../shared/errors/index.js';
import type { Logger } from '../shared/log.js';
import type { ExitStatus } from '../shared/proc/index.js';

export { describeExit, type ExitStatus } from '../shared/proc/index.js';

/** The shell convention: the code, or 128 + the signal's number when killed by a signal. */
export function exitCodeOf(status: ExitStatus): number {
  if (status.signal !== undefined) return 128 + (constants.signals[status.signal] ?? 0);
  return status.code ?? ExitCode.internal;
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

/** The node's environment: chainvisor's own with `extra` added (the node record's run id); undefined to inherit it. */
export function nodeEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv | undefined {
  return Object.keys(extra).length > 0 ? { ...process.env, ...extra } : undefined;
}

/** `env` is the node's whole environment (nodeEnvironment); without it the node inherits chainvisor's. */
export function startNode(binary: string, args: readonly string[], logger: Logger, env?: NodeJS.ProcessEnv): NodeProcess {
  const child = spawn(binary, args, { stdio: 'inherit', ...(env ? { env } : {}) });
  let done = false;
  // The node never outlives a chainvisor that exits on its own (an error, the end of `run`).
  const killOnExit = () => {
    if (!done) child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  const exited = new Promise<ExitStatus>((resolve, reject) => {
    child.once('exit', (code, signal) => {
      done = true;
      process.off('exit', killOnExit);
      resolve({ code: code ?? undefined, signal: signal ?? undefined });
    });
    child.on('error', (cause: NodeJS.ErrnoException) => {
      // Only a failed spawn gets here with no exit to follow (kill() failures are not emitted for a live child).
      if (child.pid !== undefined && !done) return;
      done = true;
      process.off('exit', killOnExit);
      reject(
        new ChainvisorError('CHAINVISOR_NODE_SPAWN_FAILED', `could not start ${binary}: ${cause.code ?? ''} ${cause.message}`.trim(), {
          hint:
            cause.code === 'EACCES'
              ? `make it executable: chmod +x ${binary}`
              : 'check that the file is a program for this machine (right architecture, interpreter present)',
          cause,
        }),
      );
    });
  });
  const kill = (signal: NodeJS.Signals) => {
    if (!done) child.kill(signal);
  };
  const node: NodeProcess = {
    pid: child.pid,
    exited,
    hasExited: () => done,
    signal: kill,
    async stop({ graceMs, killAtZero }) {
      if (done) return exited;
      if (graceMs === 0 && killAtZero) {
        logger.info({ nodePid: child.pid }, 'stopping node (SIGKILL; DAEMON_SHUTDOWN_GRACE is 0)');
        kill('SIGKILL');
        return exited;
      }
      logger.info({ nodePid: child.pid, graceMs }, 'stopping node (SIGTERM)');
      kill('SIGTERM');
      if (graceMs > 0) {
        const timer = setTimeout(() => {
          if (!done) {
            logger.warn({ nodePid: child.pid, graceMs }, 'node still running after DAEMON_SHUTDOWN_GRACE; sending SIGKILL');
            kill('SIGKILL');
          }
        }, graceMs);
        void exited.finally(() => clearTimeout(timer)).catch(() => undefined);
      }
      return exited;
    },
  };
  return node;
}
