/**
 * `<binary> version` before the binary is installed (CHAINVISOR_SMOKE_TEST): catches a binary for the
 * wrong CPU, a missing shared library or a truncated build while the old node can still be kept.
 */
import path from 'node:path';

import { runProgram } from '../shared/proc/index.js';
import { SmokeTestError } from './errors.js';

export interface SmokeTestOptions {
  binary: string;
  /** 10 s unless a test says otherwise. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Resolves with the first line the binary printed (its version), or throws SmokeTestError. */
export async function smokeTest(options: SmokeTestOptions): Promise<string> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  // Both streams as they come, as one text (at most 64 KiB of it): the tail goes into the error.
  let all = '';
  const result = await runProgram(options.binary, ['version'], {
    cwd: path.dirname(options.binary),
    timeoutMs,
    signal: options.signal,
    onLine: (line) => {
      if (all.length < 64 * 1024) all += `${line}\n`;
    },
  });
  const output = tail(all);
  if (result.timedOut) throw new SmokeTestError(options.binary, `no answer within ${timeoutMs} ms`, output);
  if (result.exitCode !== 0) {
    const why =
      result.exitCode !== undefined
        ? `exit code ${result.exitCode}`
        : result.signal !== undefined
          ? `killed by ${result.signal}`
          : `could not start (${result.cause?.code ?? result.cause?.message ?? 'unknown error'})`;
    throw new SmokeTestError(options.binary, why, output);
  }
  return (
    output
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? ''
  );
}

function tail(text: string): string {
  const trimmed = text.trim();
  return trimmed.length <= 2000 ? trimmed : `…${trimmed.slice(-2000)}`;
}
