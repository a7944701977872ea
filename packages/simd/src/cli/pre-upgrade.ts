/**
 * `<bin> pre-upgrade`: the hook a supervisor runs with the new binary before starting it
 *. Its exit code is configurable so the supervisor's contract can be tested:
 *   SIMD_PRE_UPGRADE_EXIT  exit code, or a comma list used call after call (`31,31,0`: fail twice
 *                          with "retry", then succeed); the last one repeats. Default 0.
 *   SIMD_PRE_UPGRADE_LOG   a file; each call appends one line `<version> <exit code>` (the call count
 *                          is read from it, so the list above needs it).
 */
import { appendFile, readFile } from 'node:fs/promises';

import { isErrno } from '../util/errors.js';
import { UsageProblem } from './args.js';
import type { CliIO } from './io.js';

async function previousCalls(logFile: string | undefined): Promise<number> {
  if (logFile === undefined || logFile === '') return 0;
  try {
    return (await readFile(logFile, 'utf8')).split('\n').filter((line) => line.trim() !== '').length;
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return 0;
    throw error;
  }
}

export async function preUpgrade(io: CliIO, version: string): Promise<number> {
  const spec = io.env.SIMD_PRE_UPGRADE_EXIT ?? '0';
  const codes = spec.split(',').map((c) => c.trim());
  if (codes.some((c) => !/^\d+$/.test(c) || Number(c) > 255)) {
    throw new UsageProblem(`invalid SIMD_PRE_UPGRADE_EXIT ${JSON.stringify(spec)}: expected exit codes 0-255, comma-separated`);
  }
  const logFile = io.env.SIMD_PRE_UPGRADE_LOG;
  const call = await previousCalls(logFile);
  const code = Number(codes[Math.min(call, codes.length - 1)]);
  if (logFile !== undefined && logFile !== '') await appendFile(logFile, `${version} ${code}\n`);
  io.err(`pre-upgrade: ${version} (call ${call + 1}) exits with ${code}\n`);
  return code;
}
