/**
 * Every program chainvisor runs to its end (pre-upgrade, the custom script, `version`, `ps`, the
 * rehearsal's helpers): in a process group of its own, with a deadline, its output bounded, and the
 * whole group gone when it ends, whatever it left behind. node:child_process and not execa: loading
 * execa costs about 165 ms of CPU, more than the switch's whole budget (docs/design/upgrade.md).
 */
import { spawn } from 'node:child_process';

import { eachLine } from './lines.js';

export interface RunOptions {
  cwd?: string | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  /** The deadline: past it the group gets SIGTERM, then SIGKILL (`killAfterMs`). None by default. */
  timeoutMs?: number | undefined;
  /** Stops the program (its group) as the deadline does. */
  signal?: AbortSignal | undefined;
  /** Each line of output, cut at `maxLineChars`, as it comes; the output is then not kept. */
  onLine?: ((line: string, length: number, stream: 'stdout' | 'stderr') => void) | undefined;
  /** Without `onLine`: the output kept, at most this many characters of each stream (the rest dropped). 64 KiB by default. */
  maxOutput?: number | undefined;
  maxLineChars?: number | undefined;
  /** Between the SIGTERM of a stop and the SIGKILL; 1 s by default. */
  killAfterMs?: number | undefined;
}

export interface RunResult {
  exitCode: number | undefined;
  signal: NodeJS.Signals | undefined;
  /** Set when the program could not be started (ENOENT, EACCES, ENOEXEC…). */
  cause: NodeJS.ErrnoException | undefined;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

/** A program started (startProgram): its pid at once, its result when it ends. */
export interface RunningProgram {
  pid: number | undefined;
  done: Promise<RunResult>;
}

export function runProgram(file: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return startProgram(file, args, options).done;
}

/** runProgram, for a caller that needs the pid before the end (to lower its priority, say). */
export function startProgram(file: string, args: readonly string[], options: RunOptions = {}): RunningProgram {
  const maxOutput = options.maxOutput ?? 64 * 1024;
  const maxLine = options.maxLineChars ?? 8192;
  const killAfterMs = options.killAfterMs ?? 1000;
  let pid: number | undefined;
  const done = new Promise<RunResult>((resolve) => {
    const output = { stdout: '', stderr: '' };
    let cause: NodeJS.ErrnoException | undefined;
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    // Once the program has exited and its group was killed, its pid may be reused: never signal it again.
    let ended = false;
    const child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    pid = child.pid;
    const killGroup = (signal: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined && !ended) process.kill(-child.pid, signal);
      } catch {
        // The group is gone already.
      }
    };
    const stop = () => {
      killGroup('SIGTERM');
      killTimer ??= setTimeout(() => killGroup('SIGKILL'), killAfterMs).unref();
    };
    // chainvisor never leaves a group of its own behind when it exits first.
    const onExit = () => killGroup('SIGKILL');
    process.once('exit', onExit);
    if (options.timeoutMs !== undefined) {
      timer = setTimeout(() => {
        timedOut = true;
        stop();
      }, options.timeoutMs);
    }
    const abort = () => stop();
    options.signal?.addEventListener('abort', abort, { once: true });
    if (options.signal?.aborted) stop();
    for (const name of ['stdout', 'stderr'] as const) {
      const stream = child[name];
      if (options.onLine) {
        const onLine = options.onLine;
        eachLine(stream, maxLine, (line, length) => onLine(line, length, name));
        continue;
      }
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        if (output[name].length < maxOutput) output[name] += chunk.slice(0, maxOutput - output[name].length);
      });
    }
    child.on('error', (error: NodeJS.ErrnoException) => {
      cause ??= error;
    });
    // Whatever the program started and left running goes with it (and with it, the pipes it held open).
    child.on('exit', () => {
      killGroup('SIGKILL');
      ended = true;
      clearTimeout(killTimer);
    });
    // 'close' follows the exit and the end of the output; a failed spawn emits 'error' then 'close'.
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', abort);
      process.off('exit', onExit);
      const started = !(cause && child.pid === undefined);
      resolve({
        exitCode: started ? (code ?? undefined) : undefined,
        signal: started ? (signal ?? undefined) : undefined,
        cause: started ? undefined : cause,
        timedOut,
        ...output,
      });
    });
  });
  return { pid, done };
}
