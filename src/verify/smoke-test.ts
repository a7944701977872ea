/**
 * `<binary> version` before the binary is installed (CHAINVISOR_SMOKE_TEST): catches a binary for the
 * wrong CPU, a missing shared library or a truncated build while the old node can still be kept.
 */
import path from 'node:path';

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
  // Loaded when needed: most downloads run no smoke test, and memory stays lower without it.
  const { execa } = await import('execa');
  const result = await execa(options.binary, ['version'], {
    reject: false,
    all: true,
    stdin: 'ignore',
    cwd: path.dirname(options.binary),
    timeout: timeoutMs,
    forceKillAfterDelay: 1000,
    maxBuffer: 64 * 1024,
    ...(options.signal === undefined ? {} : { cancelSignal: options.signal }),
  });
  const output = tail(typeof result.all === 'string' ? result.all : '');
  if (result.timedOut) throw new SmokeTestError(options.binary, `no answer within ${timeoutMs} ms`, output);
  if (result.failed) {
    const why =
      result.exitCode !== undefined
        ? `exit code ${result.exitCode}`
        : result.signal !== undefined
          ? `killed by ${result.signal}`
          : `could not start (${(result as { code?: string }).code ?? result.shortMessage})`;
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
