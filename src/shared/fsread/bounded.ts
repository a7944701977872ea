/**
 * Reading a small file whole (the node's `upgrade-info.json`, a config file, a record, a certificate
 * bundle) without trusting what sits at the path: opened by the one rule of open.ts (a regular file
 * only, never waiting on a FIFO, a device behind a link refused unopened), and never more than
 * `maxBytes`: the size is checked on the open descriptor, and the read stops at `maxBytes` + 1 in any
 * case, so a file that grows after the check is still bounded.
 */
import fsSync from 'node:fs';

import { checkStats, fromErrno, type NotRead, openUnchecked, readFlags, tooLarge } from './open.js';

export type BoundedRead = { status: 'ok'; text: string } | NotRead;
export type BoundedBytes = { status: 'ok'; bytes: Buffer } | NotRead;

const chunkBytes = 64 * 1024;

/** Reads `file` as UTF-8 when it is a regular file of at most `maxBytes` bytes. */
export async function readBounded(file: string, maxBytes: number): Promise<BoundedRead> {
  const read = await readBoundedBytes(file, maxBytes);
  return read.status === 'ok' ? { status: 'ok', text: read.bytes.toString('utf8') } : read;
}

/** The same, as bytes (a database's MANIFEST, a binary to compare). */
export async function readBoundedBytes(file: string, maxBytes: number): Promise<BoundedBytes> {
  const opened = await openUnchecked(file, maxBytes);
  if (opened.status !== 'open') return opened;
  const { handle } = opened;
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
    return await readRest(first.value, readChunk, maxBytes, stats.value.size);
  } catch (error) {
    return fromErrno(error);
  } finally {
    // Closing a descriptor opened read-only loses nothing and cannot fail in a way that matters: not awaited.
    handle.close().catch(() => undefined);
  }
}

async function readRest(
  first: { buffer: Buffer; bytesRead: number },
  readChunk: (total: number) => Promise<{ buffer: Buffer; bytesRead: number }>,
  maxBytes: number,
  size: number,
): Promise<BoundedBytes> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (let chunk = first; ; chunk = await readChunk(total)) {
    const { buffer, bytesRead } = chunk;
    if (bytesRead === 0) break;
    chunks.push(buffer.subarray(0, bytesRead));
    total += bytesRead;
    if (total > maxBytes) return tooLarge(undefined, maxBytes);
    // A regular file reads short only at its end: no need for the read that returns 0. Not so /proc's
    // files, whose size says 0: they are read until a read returns nothing.
    if (bytesRead < buffer.length && total >= size) break;
  }
  return { status: 'ok', bytes: Buffer.concat(chunks, total) };
}

/**
 * The same, synchronously, where the caller cannot wait: the configuration, read before anything else
 * runs, and a look at /proc that must not yield to the event loop. It never opens what is not a regular
 * file (the type is looked at first, links followed), so it cannot wait on a FIFO or read a device; a
 * regular file of a few MiB at most is read at the disk's speed.
 */
export function readBoundedSync(file: string, maxBytes: number): BoundedRead {
  let fd: number;
  try {
    // stat follows links: a FIFO or a device, behind a link or not, is refused unopened.
    const early = checkStats(fsSync.statSync(file), maxBytes);
    if (early !== undefined) return early;
    fd = fsSync.openSync(file, readFlags);
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
