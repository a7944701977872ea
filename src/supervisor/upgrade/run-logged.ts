/**
 * The programs of the pre-upgrade steps (run-custom-pre-upgrade.ts, run-pre-upgrade.ts), run to their
 * end (src/shared/proc) with their output copied line by line into chainvisor's log (stderr), never to
 * stdout: stdout carries the node's output only, for operators who parse it.
 */
import type { Logger } from '../../shared/log.js';
import { runProgram, type RunResult } from '../../shared/proc/index.js';

/** Longest line of a script's output copied into one log line; the rest is cut (a 64 KiB line once froze cosmovisor). */
const maxLoggedLine = 8192;

export function runLogged(
  file: string,
  args: string[],
  options: { cwd?: string; logger: Logger; source: string; signal?: AbortSignal | undefined },
): Promise<RunResult> {
  return runProgram(file, args, {
    cwd: options.cwd,
    signal: options.signal,
    maxLineChars: maxLoggedLine,
    onLine: (line, length, stream) => {
      const text = length > maxLoggedLine ? `${line}… (${length} characters, cut)` : line;
      options.logger.info({ source: options.source, stream }, text);
    },
  });
}
