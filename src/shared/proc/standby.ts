/**
 * A program started ahead of need. Starting a child costs the supervisor a fork of its whole process,
 * about 1.5 ms here with its event loop blocked, and a switch pays it twice on its critical path
 * (`pre-upgrade`, then the new node). A standby is a small shell forked while nothing is urgent, waiting
 * on a pipe; told which program to run and with which arguments, it replaces itself with it (exec). The
 * program keeps the shell's pid, stdio, environment and working folder: it is the supervisor's own
 * child, as if spawned then. A shell never told (chainvisor stopped or killed: its pipe ends) exits
 * without running anything.
 *
 * Nothing about the program is in the shell's command line (`ps` shows only `chainvisor-standby`), so
 * a `pgrep -f` for the node's arguments never mistakes a waiting shell for the node. Whenever a standby
 * cannot give the program exactly what a spawn would — no /bin/sh (a distroless image), an environment
 * a shell would alter, an argument with a newline, a shell that is gone — it is not used, and the
 * caller spawns as usual.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import type { Socket } from 'node:net';
import path from 'node:path';

import { isProcessAliveNow } from './identity.js';

/**
 * fd 3 brings the program's path, the number of arguments and the arguments, a line each; it is closed
 * before the exec, so the program never sees it. Input that ends early (chainvisor gone, the standby
 * dismissed) runs nothing, and the shell exits 125, a code no caller takes for a program's success.
 * All builtins: the shell forks nothing.
 */
const script = [
  'IFS= read -r file <&3 || exit 125',
  'IFS= read -r n <&3 || exit 125',
  'while [ "$#" -lt "$n" ]; do IFS= read -r arg <&3 || exit 125; set -- "$@" "$arg"; done',
  'exec 3<&-',
].join('\n');
/** What `ps` shows as the shell's $0, unless told otherwise. */
const defaultTitle = 'chainvisor-standby';

export interface StandbyOptions {
  /** The program's stdin, stdout and stderr: chainvisor's own, or stdout and stderr piped to it. */
  stdio: 'inherit' | 'pipe-output';
  /** The program's whole environment (chainvisor's when absent). Compared by identity at take(). */
  env?: NodeJS.ProcessEnv | undefined;
  /** What `ps` shows while it waits (`chainvisor-standby` by default). */
  title?: string;
}

export interface Standby {
  /** The waiting shell's pid, which the program keeps (undefined when no shell was started). */
  readonly pid: number | undefined;
  /** True while it can still take a program (started, not taken, not dismissed, alive). */
  readonly usable: boolean;
  /** True when it is usable and was started with this environment. */
  fits(env?: NodeJS.ProcessEnv): boolean;
  /**
   * Runs `file` (an absolute path) with `args` in the waiting process, when `env` is the one it was
   * started with, and returns that process; undefined when it cannot (the caller spawns). One use.
   */
  take(file: string, args: readonly string[], env?: NodeJS.ProcessEnv): ChildProcess | undefined;
  /** Lets the waiting shell exit without running anything. */
  dismiss(): void;
}

export function startStandby(options: StandbyOptions): Standby {
  const { env } = options;
  const shell = shellFor(env ?? process.env);
  let child: ChildProcess | undefined;
  if (shell !== undefined) {
    try {
      const stdio = options.stdio === 'inherit' ? ['inherit', 'inherit', 'inherit', 'pipe'] : ['ignore', 'pipe', 'pipe', 'pipe'];
      child = spawn('/bin/sh', ['-c', shell, options.title ?? defaultTitle], {
        stdio: stdio as ['inherit', 'inherit', 'inherit', 'pipe'],
        ...(env ? { env } : {}),
      });
    } catch {
      // Out of memory or of process slots: spawn throws. The program will be spawned when needed (and
      // report the same trouble there, where it has a caller).
      child = undefined;
    }
  }
  // Out of file descriptors, spawn returns a child without stdio (its 'error' follows).
  const pipe = child?.stdio?.[3] as Socket | null | undefined;
  let state: 'waiting' | 'taken' | 'gone' = child?.pid !== undefined && pipe ? 'waiting' : 'gone';
  const sockets = child?.stdio ? ([child.stdio[1], child.stdio[2], pipe].filter((s) => s) as Socket[]) : [];
  if (child) {
    // A failed start ('error' without a pid) or a shell ended before its use (killed with its process
    // group, say): either way it is gone.
    child.on('error', () => {
      if (state === 'waiting') state = 'gone';
    });
    child.on('exit', () => {
      if (state === 'waiting') state = 'gone';
    });
    // A write to a shell that has just died fails with EPIPE; its exit says the rest.
    pipe?.on('error', () => undefined);
    // A waiting standby never keeps chainvisor's event loop alive.
    child.unref();
    for (const socket of sockets) socket.unref();
  }

  const release = () => {
    if (state === 'waiting') state = 'gone';
    pipe?.end();
  };
  const fits = (otherEnv?: NodeJS.ProcessEnv) => state === 'waiting' && otherEnv === env;
  return {
    pid: child?.pid,
    get usable() {
      return state === 'waiting';
    },
    fits,
    take(file, args, takeEnv) {
      // Each value goes as one line to `read`: the path absolute (no PATH search), nothing with a newline.
      const lines = [file, String(args.length), ...args];
      if (!child || !pipe || !fits(takeEnv) || !path.isAbsolute(file) || lines.some((line) => line.includes('\n')) || !stillWaiting(child.pid as number)) {
        release();
        return undefined;
      }
      state = 'taken';
      pipe.end(`${lines.join('\n')}\n`);
      child.ref();
      for (const socket of sockets) socket.ref();
      return child;
    },
    dismiss: release,
  };
}

/**
 * The standby's script for this environment, or undefined when a shell would not pass it on unchanged.
 * A shell drops variables whose names are not shell names (dash does), and sets PWD: it is unset again
 * when the environment had none, and an environment whose PWD is not the working folder (which the
 * shell would correct) gets no standby. bash as /bin/sh also adds SHLVL=0 when SHLVL is not set.
 */
function shellFor(env: NodeJS.ProcessEnv): string | undefined {
  if (Object.keys(env).some((name) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))) return undefined;
  const pwd = env.PWD;
  if (pwd === undefined) return `${script}\nunset PWD\nexec "$file" "$@"`;
  try {
    const [named, actual] = [fs.statSync(pwd), fs.statSync('.')];
    if (named.dev !== actual.dev || named.ino !== actual.ino) return undefined;
  } catch {
    return undefined;
  }
  return `${script}\nexec "$file" "$@"`;
}

/**
 * Looked at just before the shell is told: one that died moments ago is a zombie until the event loop
 * reaps it, and its exit would pass for the program's. A look that fails counts as gone (a spawn then).
 */
function stillWaiting(pid: number): boolean {
  try {
    return isProcessAliveNow(pid);
  } catch {
    return false;
  }
}
