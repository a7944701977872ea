/**
 * Files too large to read whole, read as a stream: a genesis (gigabytes), a binary to hash or copy.
 * Opened by the one rule of open.ts (a regular file only, type checked on the descriptor, never
 * waiting on a FIFO), then streamed from that very descriptor, and only as far as the size it had when
 * it was opened: a file that grows while it is read (a writer appending for ever) is read as it was,
 * never without end. `signal` stops the stream.
 */
import { createWriteStream } from 'node:fs';
import { addAbortSignal, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import { fromErrno, type NotRead, openRegular } from './open.js';

export type StreamRead = { status: 'ok'; stream: Readable; size: number } | NotRead;

export interface StreamOptions {
  /** Refused when larger at the open. Default: no limit (the size at the open bounds the read). */
  maxBytes?: number;
  highWaterMark?: number;
  signal?: AbortSignal;
}

/** A stream of `file`'s bytes, as many as it held when opened, when it is a regular file of at most `maxBytes` bytes. */
export async function openReadStream(file: string, options: StreamOptions = {}): Promise<StreamRead> {
  options.signal?.throwIfAborted();
  const opened = await openRegular(file, options.maxBytes);
  if (opened.status !== 'ok') return opened;
  const { handle, stats } = opened;
  let stream: Readable;
  if (stats.size === 0) {
    await handle.close();
    stream = Readable.from([]);
  } else {
    // `end` is inclusive. The descriptor is closed with the stream (at its end, or when destroyed).
    stream = handle.createReadStream({ start: 0, end: stats.size - 1, highWaterMark: options.highWaterMark ?? 1 << 20 });
  }
  if (options.signal !== undefined) addAbortSignal(options.signal, stream);
  return { status: 'ok', stream, size: stats.size };
}

/** What went wrong in the middle of a stream of `openReadStream` (an I/O error), as a refusal. */
export function streamFailure(error: unknown): NotRead {
  return fromErrno(error);
}

export type FileDigest = { status: 'ok'; hex: string; bytes: number } | NotRead;

/** The hex digest (`sha256` by default) of a regular file, read as a stream. */
export async function hashFile(file: string, options: StreamOptions & { algo?: string } = {}): Promise<FileDigest> {
  const read = await openReadStream(file, options);
  if (read.status !== 'ok') return read;
  // node:crypto loaded on first use: every command loads this folder, few hash.
  const hash = process.getBuiltinModule('node:crypto').createHash(options.algo ?? 'sha256');
  let bytes = 0;
  try {
    for await (const chunk of read.stream as AsyncIterable<Buffer>) {
      hash.update(chunk);
      bytes += chunk.length;
    }
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return streamFailure(error);
  }
  return { status: 'ok', hex: hash.digest('hex'), bytes };
}

export type FileCopy = { status: 'ok'; bytes: number } | NotRead;

/**
 * Copies a regular file, opened by the rule of open.ts, into `dest`, created new with `mode`: a binary
 * or a genesis copied from wherever the operator keeps it. What is wrong at the source is a NotRead; a
 * failure to write is thrown, as it is.
 */
export async function copyRegular(file: string, dest: string, options: StreamOptions & { mode: number }): Promise<FileCopy> {
  const read = await openReadStream(file, options);
  if (read.status !== 'ok') return read;
  const out = createWriteStream(dest, { flags: 'wx', mode: options.mode });
  // A failed write also ends the read (with the write's error): which side failed first decides.
  let writeError: unknown;
  out.once('error', (error) => (writeError ??= error));
  try {
    await pipeline(read.stream, out);
  } catch (error) {
    if (writeError === undefined && !options.signal?.aborted) return streamFailure(error);
    throw error;
  }
  return { status: 'ok', bytes: out.bytesWritten };
}

/**
 * Whether two files are regular files holding the same bytes: sizes first, then their digests, each
 * read as a stream (binaries of hundreds of MiB are never held whole). False when either cannot be read.
 */
export async function sameContent(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([openRegular(a), openRegular(b)]);
  const sizes = [x, y].map((opened) => (opened.status === 'ok' ? opened.stats.size : undefined));
  for (const opened of [x, y]) if (opened.status === 'ok') await opened.handle.close();
  if (sizes[0] === undefined || sizes[0] !== sizes[1]) return false;
  const [hx, hy] = await Promise.all([hashFile(a), hashFile(b)]);
  return hx.status === 'ok' && hy.status === 'ok' && hx.hex === hy.hex;
}
