/**
 * The one rule by which chainvisor opens a file to read it, whoever wrote it: the small files read
 * whole (bounded.ts) and the streams of large ones (stream.ts: a genesis, a binary to hash or copy).
 * Why, and the rest of its rules: docs/design/reading-and-redacting.md#sharedfsreadopents.
 */
import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';

/** Why a file was not read. */
export type NotRead =
  /** Nothing at the path (or a folder on the way is missing). */
  | { status: 'missing' }
  /** Not something to read: `reason` says what it is; `errno` when the system said so. */
  | { status: 'refused'; reason: string; errno?: string };

export type Opened = { status: 'ok'; handle: fs.FileHandle; stats: Stats } | NotRead;

/** Read-only, and never waiting for a FIFO's writer. On a regular file O_NONBLOCK changes nothing. */
export const readFlags = constants.O_RDONLY | constants.O_NONBLOCK;

export function describeType(stats: Stats): string {
  if (stats.isFile()) return 'a regular file';
  if (stats.isDirectory()) return 'a folder';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

const reasons: Record<string, string> = {
  ELOOP: 'it is a symbolic link loop',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENXIO: 'it is a socket or a device without a reader',
  ENAMETOOLONG: 'the path is too long',
  EISDIR: 'it is a folder, not a regular file',
  EIO: 'the disk returned an I/O error',
};

/** What an open, stat or read failure means for the caller; anything unexpected is still a refusal, with its code. */
export function fromErrno(error: unknown): NotRead {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== 'string') throw error;
  if (code === 'ENOENT' || code === 'ENOTDIR') return { status: 'missing' };
  return { status: 'refused', reason: `${reasons[code] ?? (error as Error).message} (${code})`, errno: code };
}

/** Refuses what is not a regular file, or one over `maxBytes`. */
export function checkStats(stats: Stats, maxBytes: number): NotRead | undefined {
  if (!stats.isFile()) return { status: 'refused', reason: `it is ${describeType(stats)}, not a regular file` };
  if (stats.size > maxBytes) return tooLarge(stats.size, maxBytes);
  return undefined;
}

export function tooLarge(size: number | undefined, maxBytes: number): NotRead {
  const what = size === undefined ? 'more than' : `${size} bytes, over`;
  return { status: 'refused', reason: `it is too large (${what} the limit of ${maxBytes} bytes)` };
}

/**
 * Opens `file` by the rule above without checking the descriptor (readBounded checks it beside its
 * first read, one trip through the thread pool fewer on the path of every switch); `openRegular`
 * checks it.
 */
export async function openUnchecked(file: string, maxBytes: number): Promise<{ status: 'open'; handle: fs.FileHandle } | NotRead> {
  try {
    // A name that is not a symbolic link is opened at once: only root can make a device node, and a FIFO
    // opened with O_NONBLOCK returns at once and is refused by its type before any read.
    return { status: 'open', handle: await fs.open(file, readFlags | constants.O_NOFOLLOW) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | null)?.code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { status: 'missing' };
    // A link (ELOOP here), a socket (ENXIO) or anything else: looked at first, so that a device behind a
    // link is refused without even being opened and the reason names what is there.
    try {
      const early = checkStats(await fs.stat(file), maxBytes);
      if (early !== undefined) return early;
      return { status: 'open', handle: await fs.open(file, readFlags) };
    } catch (again) {
      return fromErrno(again);
    }
  }
}

/** Opens `file` when it is a regular file of at most `maxBytes` bytes (by the descriptor's own stat). */
export async function openRegular(file: string, maxBytes = Number.POSITIVE_INFINITY): Promise<Opened> {
  const opened = await openUnchecked(file, maxBytes);
  if (opened.status !== 'open') return opened;
  const { handle } = opened;
  try {
    const stats = await handle.stat();
    const refused = checkStats(stats, maxBytes);
    if (refused === undefined) return { status: 'ok', handle, stats };
    await handle.close();
    return refused;
  } catch (error) {
    await handle.close().catch(() => undefined);
    return fromErrno(error);
  }
}

/**
 * A NotRead as the operating-system error it stands for, for code that treats a file it wrote itself
 * (a download in chainvisor's own work folder) like any other file-system failure: `code` is the errno
 * (ENOENT when missing; EINVAL for what is not a regular file, EFBIG for too large) and `path` the file.
 */
export function notReadError(file: string, notRead: NotRead): NodeJS.ErrnoException {
  const reason = notRead.status === 'missing' ? 'no such file' : notRead.reason;
  const code = notRead.status === 'missing' ? 'ENOENT' : (notRead.errno ?? (/too large/.test(reason) ? 'EFBIG' : 'EINVAL'));
  return Object.assign(new Error(`cannot read ${file}: ${reason}`), { code, path: file });
}
