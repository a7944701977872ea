/**
 * The programs of the pre-upgrade steps (3-custom-pre-upgrade.ts, 5-pre-upgrade.ts), run with their
 * output copied line by line into chainvisor's log.
 */
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';

import type { Logger } from '../../shared/log.js';
import { eachLine, type Standby } from '../../shared/proc/index.js';

/** Longest line of a script's output copied into one log line; the rest is cut (a 64 KiB line once froze cosmovisor). */
const maxLoggedLine = 8192;

export interface RunResult {
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
export function runLogged(
  file: string,
  args: string[],
  options: { cwd?: string; logger: Logger; source: string; standby?: Standby | undefined },
): Promise<RunResult> {
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
