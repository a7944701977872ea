/**
 * What makes a file acceptable as the node binary beyond "it exists": it is not empty (an empty file
 * is a failed copy or download, never a node — and a shell would "run" it as an empty script and exit
 * 0), and nobody but its owner can rewrite it (a binary that group or others can write is a way for
 * them to run code as the node's user; it still runs, with a warning).
 */
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';

import { ChainvisorError, type ExitCodeValue, isErrno, isFsError, layoutFsError } from '../../shared/errors/index.js';
import type { Logger } from '../../shared/log.js';

/** Throws CHAINVISOR_BINARY_EMPTY when `stats` (of `file`) is an empty file. */
export function refuseEmptyBinary(file: string, stats: Stats, exitCode: ExitCodeValue, hint?: string): void {
  if (stats.size > 0) return;
  throw new ChainvisorError('CHAINVISOR_BINARY_EMPTY', `${file} is empty (0 bytes): not a node binary`, {
    hint: hint ?? 'the copy or download that produced it failed; put the real node binary there',
    exitCode,
  });
}

/** Logs a warning when group or others may write `file` (mode & 0o022). Returns true when it warned. */
function warnIfWritableByOthers(file: string, stats: Stats, logger: Logger, when: string): boolean {
  const mode = stats.mode & 0o7777;
  if ((mode & 0o022) === 0) return false;
  logger.warn(
    { event: 'binary-writable', binary: file, mode: mode.toString(8).padStart(4, '0') },
    '%s: the node binary %s (mode %s) can be written by %s; anyone who can rewrite it runs code as the node — fix with: chmod go-w %s',
    when,
    file,
    mode.toString(8).padStart(4, '0'),
    (mode & 0o022) === 0o022 ? 'group and others' : (mode & 0o020) !== 0 ? 'its group' : 'others',
    file,
  );
  return true;
}

/**
 * What is at `file` (links followed), or undefined when nothing is; any other failure (a link loop, a
 * denied folder) is CHAINVISOR_LAYOUT_INVALID with `exitCode`.
 */
export async function statBinary(file: string, exitCode: ExitCodeValue): Promise<Stats | undefined> {
  try {
    return await fs.stat(file);
  } catch (error) {
    if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR')) return undefined;
    throw isFsError(error) ? layoutFsError(file, 'examine', error, exitCode) : error;
  }
}

/**
 * The checks before a binary runs or becomes `current`, on what statBinary found: a regular file, not
 * empty (throws with `exitCode`), a warning if others can write it. Returns false when there is no file.
 */
export function acceptNodeBinary(file: string, stats: Stats | undefined, options: { logger: Logger; when: string; exitCode: ExitCodeValue }): boolean {
  if (stats === undefined || !stats.isFile()) return false;
  refuseEmptyBinary(file, stats, options.exitCode);
  warnIfWritableByOthers(file, stats, options.logger, options.when);
  return true;
}

/** statBinary, then acceptNodeBinary. */
export async function checkNodeBinary(file: string, options: { logger: Logger; when: string; exitCode: ExitCodeValue }): Promise<boolean> {
  return acceptNodeBinary(file, await statBinary(file, options.exitCode), options);
}
