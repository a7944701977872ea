/**
 * A program started ahead of need. Starting a child costs the supervisor a fork of its whole process,
 * about 1.5 ms here with its event loop blocked, and a switch pays it twice on its critical path
 * (`pre-upgrade`, then the new node). A standby is a small shell forked while nothing is urgent, waiting
 * on a pipe; told which program to run, it replaces itself with it (exec). The program keeps the
 * shell's pid, stdio, environment and working folder: it is the supervisor's own child, as if spawned
 * then. A shell never told (chainvisor stopped or killed: its pipe ends) exits without running anything.
 *
 * Not an executor of anything but the given path with the arguments fixed at its start; without
 * /bin/sh (a distroless image), the standby is simply gone and the caller spawns as usual.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import path from 'node:path';

/**
 * fd 3 brings the program's path, one line; it is closed before the exec, so the program never sees it.
 * End of input without a whole line (chainvisor gone, the standby dismissed) runs nothing.
 */
const script = 'IFS= read -r file <&3 || exit 0; exec 3<&-; exec "$file" "$@"';
/** What `ps` shows as the shell's $0. */
const title = 'chainvisor-standby';

export interface StandbyOptions {
  /** The program's arguments, fixed now. */
  args: readonly string[];
  /** The program's stdin, stdout and stderr: chainvisor's own, or stdout and stderr piped to it. */
  stdio: 'inherit' | 'pipe-output';
  /** The program's whole environment (chainvisor's when absent). Compared by identity at take(). */
  env?: NodeJS.ProcessEnv | undefined;
}

export interface Standby {
  /** The waiting shell's pid, which the program keeps (undefined when the shell could not start). */
  readonly pid: number | undefined;
  /** True while it can still take a program (started, not taken, not dismissed, alive). */
  readonly usable: boolean;
  /** True when it is usable and was started with these arguments and this environment. */
  fits(args: readonly string[], env?: NodeJS.ProcessEnv): boolean;
  /**
   * Runs `file` (an absolute path) in the waiting process, when `args` and `env` are those it was
   * started with, and returns that process; undefined when it cannot (the caller spawns). One use.
   */
  take(file: string, args: readonly string[], env?: NodeJS.ProcessEnv): ChildProcess | undefined;
  /** Lets the waiting shell exit without running anything. */
  dismiss(): void;
}

export function startStandby(options: StandbyOptions): Standby {
  const { args, env } = options;
  const stdio = options.stdio === 'inherit' ? ['inherit', 'inherit', 'inherit', 'pipe'] : ['ignore', 'pipe', 'pipe', 'pipe'];
  const child = spawn('/bin/sh', ['-c', script, title, ...args], { stdio: stdio as ['inherit', 'inherit', 'inherit', 'pipe'], ...(env ? { env } : {}) });
  let state: 'waiting' | 'taken' | 'gone' = child.pid === undefined ? 'gone' : 'waiting';
  // A failed start ('error' without a pid) or a shell ended before its use (killed with its process
  // group, say): either way it is gone, and take() says so.
  child.on('error', () => {
    if (state === 'waiting') state = 'gone';
  });
  child.on('exit', () => {
    if (state === 'waiting') state = 'gone';
  });
  const sockets = [child.stdio[1], child.stdio[2], child.stdio[3]].filter((s): s is Socket => s !== null && s !== undefined) as Socket[];
  const pipe = child.stdio[3] as Socket | null;
  // A write to a shell that has just died fails with EPIPE; its exit says the rest.
  pipe?.on('error', () => undefined);
  // A waiting standby never keeps chainvisor's event loop alive.
  child.unref();
  for (const socket of sockets) socket.unref();

  const release = () => {
    state = state === 'waiting' ? 'gone' : state;
    pipe?.end();
  };
  const fits = (otherArgs: readonly string[], otherEnv?: NodeJS.ProcessEnv) =>
    state === 'waiting' && otherEnv === env && otherArgs.length === args.length && otherArgs.every((arg, i) => arg === args[i]);
  return {
    pid: child.pid,
    get usable() {
      return state === 'waiting';
    },
    fits,
    take(file, takeArgs, takeEnv) {
      // The path goes as one line to `read`: absolute (no PATH search) and without a newline.
      if (pipe === null || !fits(takeArgs, takeEnv) || !path.isAbsolute(file) || file.includes('\n')) {
        release();
        return undefined;
      }
      state = 'taken';
      pipe.end(`${file}\n`);
      child.ref();
      for (const socket of sockets) socket.ref();
      return child;
    },
    dismiss: release,
  };
}
