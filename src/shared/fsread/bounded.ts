/**
 * Reading a small file that someone else writes (the node's `upgrade-info.json`, a config file)
 * without trusting what sits at the path. Only a regular file is read, never more than `maxBytes`:
 *
 * - a FIFO would block the open or the read for good (and with it a thread of libuv's pool, so that
 *   after a few reads every file operation of the process — and the handling of SIGTERM — waits behind
 *   it); it is opened with O_NONBLOCK, so both return at once, and refused by its type;
 * - a device (`/dev/zero` behind a link) or a huge file would be read into memory without end; the
 *   type and the size are checked on the open descriptor, and the read stops at `maxBytes` + 1 in
 *   any case (a file that grows after the check is still bounded). Opening some devices does
 *   something (a watchdog arms): a symbolic link is looked at before it is opened, so a device behind
 *   one is refused unopened; a device node in place of the file itself can only be made by root.
 *
 * Links are followed, as cosmovisor does (a `data/` folder on another volume is common); only the
 * final file must be a regular one. Nothing here throws for what is found at the path: the caller
 * gets a result saying what is wrong and turns it into its own coded error.
 */
import type { Stats } from 'node:fs';
import fsSync, { constants } from 'node:fs';
import fs from 'node:fs/promises';

export type BoundedRead =
  | { status: 'ok'; text: string }
  /** Nothing at the path (or a folder on the way is missing). */
  | { status: 'missing' }
  /** Not something to read: `reason` says what it is (a FIFO, a folder, too large, a link loop, no permission). */
  | { status: 'refused'; reason: string; errno?: string };

const openFlags = constants.O_RDONLY | constants.O_NONBLOCK;
const chunkBytes = 64 * 1024;

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

/** What an open or stat failure means for the caller; anything unexpected is still a refusal, with its code. */
function fromErrno(error: unknown): BoundedRead {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== 'string') throw error;
  if (code === 'ENOENT' || code === 'ENOTDIR') return { status: 'missing' };
  const reasons: Record<string, string> = {
    ELOOP: 'it is a symbolic link loop',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    ENXIO: 'it is a socket or a device without a reader',
    ENAMETOOLONG: 'the path is too long',
  };
  return { status: 'refused', reason: `${reasons[code] ?? (error as Error).message} (${code})`, errno: code };
}

function checkStats(stats: Stats, maxBytes: number): BoundedRead | undefined {
  if (!stats.isFile()) return { status: 'refused', reason: `it is ${describeType(stats)}, not a regular file` };
  if (stats.size > maxBytes) return tooLarge(stats.size, maxBytes);
  return undefined;
}

function tooLarge(size: number | undefined, maxBytes: number): BoundedRead {
  const what = size === undefined ? 'more than' : `${size} bytes, over`;
  return { status: 'refused', reason: `it is too large (${what} the limit of ${maxBytes} bytes)` };
}

/** Reads `file` as UTF-8 when it is a regular file of at most `maxBytes` bytes. */
export async function readBounded(file: string, maxBytes: number): Promise<BoundedRead> {
  let handle: fs.FileHandle;
  try {
    // A name that is not a symbolic link is opened at once (one trip through the thread pool fewer, on
    // the path of every switch): only root can make a device node, and a FIFO opened with O_NONBLOCK
    // returns at once and is refused by its type below, before any read.
    handle = await fs.open(file, openFlags | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | null)?.code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { status: 'missing' };
    // A link (ELOOP here), a socket (ENXIO) or anything else: looked at first, so that a device behind
    // a link is refused without even being opened and the reason names what is there.
    try {
      const early = checkStats(await fs.stat(file), maxBytes);
      if (early !== undefined) return early;
      handle = await fs.open(file, openFlags);
    } catch (again) {
      return fromErrno(again);
    }
  }
  try {
    // The check of the open descriptor and the first read go to the thread pool together (each trip
    // there is on the path of every switch). What the first read takes from something that is not a
    // regular file (a FIFO someone writes to, a device) is at most `maxBytes` + 1 bytes, does not wait
    // on a FIFO (O_NONBLOCK), and is dropped: the type decides before any of it is used.
    const readChunk = async (total: number) => {
      const buffer = Buffer.allocUnsafe(Math.min(chunkBytes, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      return { buffer, bytesRead };
    };
    const [stats, first] = await Promise.allSettled([handle.stat(), readChunk(0)]);
    if (stats.status === 'rejected') throw stats.reason;
    const late = checkStats(stats.value, maxBytes);
    if (late !== undefined) return late;
    if (first.status === 'rejected') throw first.reason;
    const chunks: Buffer[] = [];
    let total = 0;
    for (let chunk = first.value; ; chunk = await readChunk(total)) {
      const { buffer, bytesRead } = chunk;
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) return tooLarge(undefined, maxBytes);
      // A regular file reads short only at its end: no need for the read that returns 0.
      if (bytesRead < buffer.length) break;
    }
    return { status: 'ok', text: Buffer.concat(chunks, total).toString('utf8') };
  } catch (error) {
    return fromErrno(error);
  } finally {
    // Closing a descriptor opened read-only loses nothing and cannot fail in a way that matters: not awaited.
    handle.close().catch(() => undefined);
  }
}

/** The same, synchronously (configuration files, read before anything else runs). */
export function readBoundedSync(file: string, maxBytes: number): BoundedRead {
  let fd: number;
  try {
    const early = checkStats(fsSync.statSync(file), maxBytes);
    if (early !== undefined) return early;
    fd = fsSync.openSync(file, openFlags);
  } catch (error) {
    return fromErrno(error);
  }
  try {
    const late = checkStats(fsSync.fstatSync(fd), maxBytes);
    if (late !== undefined) return late;
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.allocUnsafe(Math.min(chunkBytes, maxBytes + 1 - total));
      const bytesRead = fsSync.readSync(fd, buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) return tooLarge(undefined, maxBytes);
    }
    return { status: 'ok', text: Buffer.concat(chunks, total).toString('utf8') };
  } catch (error) {
    return fromErrno(error);
  } finally {
    fsSync.closeSync(fd);
  }
}
