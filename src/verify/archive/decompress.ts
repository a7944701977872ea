/**
 * Streaming decompressors for the three compressions go-getter reads beside gzip: each is a chain of
 * Node transforms that takes compressed bytes as they arrive and gives the decompressed bytes in
 * pieces (never the whole file in memory), and each refuses a stream cut short instead of ending
 * quietly on a partial binary.
 *   - zstd: node:zlib (Node 22.15+), with zstd-frames.ts checking that the last frame is whole;
 *   - xz: xz-decompress, xz-embedded compiled to WebAssembly with the module inlined in its
 *     JavaScript (so it works inside the single executable's bundle; no native addon);
 *   - bzip2: unbzip2-stream's pure-JavaScript decoder, one block at a time (decompress-bzip2.ts).
 * Errors come out as ArchiveInvalidError (`CHAINVISOR_ARCHIVE_INVALID`) saying what was wrong.
 */
import { Duplex, Transform } from 'node:stream';
import { createZstdDecompress, zstdCompressSync, zstdDecompressSync } from 'node:zlib';

import * as xzNamespace from 'xz-decompress';

import { ArchiveInvalidError, type Subject } from '../errors.js';
import type { Compression } from '../format.js';
import { createBzip2Decompress, OutputLimitError, TruncatedError } from './decompress-bzip2.js';
import { createZstdFrameCheck } from './zstd-frames.js';

export { OutputLimitError };

// A webpack bundle marked __esModule: Node's ESM loader gives its exports as `default`, esbuild's
// CommonJS bundle (the single executable) as the namespace itself.
const xzModule = xzNamespace as typeof xzNamespace & { default?: typeof xzNamespace };
const { XzReadableStream } = xzModule.default ?? xzModule;

/** The stages to put between the compressed bytes and their reader, in order. */
/** `maxBytes`: a decoder that yields large pieces at once (bzip2) stops itself past it. */
export function createDecompressor(compression: Compression, maxBytes: number): [Duplex, Duplex?] {
  switch (compression) {
    case 'zstd':
      return [zstdFrameCheck(), createZstdDecompress()];
    case 'xz':
      return [xzStream()];
    case 'bzip2':
      return [createBzip2Decompress(maxBytes)];
  }
}

/** A decompressor's failure in the operator's terms. */
export function decompressError(subject: Subject, compression: Compression, error: Error): ArchiveInvalidError {
  return new ArchiveInvalidError(subject, `${compression} data: ${explain(compression, error)}`, error);
}

/** A zstd stream this Node cannot decompress whole. */
class SeveralFramesError extends Error {}

function explain(compression: Compression, error: Error): string {
  if (error instanceof TruncatedError || error instanceof SeveralFramesError) return error.message;
  if (compression === 'xz') {
    const code = /error code (\d+)/.exec(error.message)?.[1];
    // xz-embedded's codes (xz.h: enum xz_ret).
    const xzCodes: Record<string, string> = {
      '2': 'the integrity check type is not supported',
      '3': 'out of memory',
      '4': 'the dictionary is larger than the decoder allows',
      '5': 'not an xz stream',
      '6': 'unsupported xz options (a filter other than LZMA2, x86, ARM…)',
      '7': 'corrupt data (a check or size does not match)',
      '8': 'the stream ends before its end marker: the file is truncated',
    };
    if (code !== undefined) return xzCodes[code] ?? `decoder error ${code}`;
    // The reader asked for more input after the last byte.
    if (error instanceof TypeError) return 'the stream ends before its end marker: the file is truncated';
  }
  if (compression === 'bzip2') return `corrupt data (${error.message})`;
  return error.message;
}

let multiFrameZstd: boolean | undefined;

/**
 * Whether this Node's zstd decompressor reads every frame of a stream (Node 26 does; Node 22's stops
 * after the first). Several frames are what pzstd writes, and what go-getter reads.
 */
function readsEveryZstdFrame(): boolean {
  multiFrameZstd ??= zstdDecompressSync(Buffer.concat([zstdCompressSync('a'), zstdCompressSync('b')])).length === 2;
  return multiFrameZstd;
}

/** Passes the bytes on unchanged; at their end, refuses a zstd stream that stops inside a frame. */
function zstdFrameCheck(): Transform {
  const frames = createZstdFrameCheck();
  const everyFrame = readsEveryZstdFrame();
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      try {
        frames.push(chunk);
      } catch (error) {
        callback(error as Error);
        return;
      }
      if (!everyFrame && frames.begun >= 2) {
        // A second frame began: this Node would decompress the first only, a binary cut short.
        callback(
          new SeveralFramesError(
            `the stream holds several zstd frames (as pzstd writes them), which this Node.js (${process.versions.node}) decompresses only in part; use the release executable (Node.js 26) or a single-frame .zst (zstd, not pzstd)`,
          ),
        );
        return;
      }
      callback(null, chunk);
    },
    flush(callback) {
      callback(frames.complete ? null : new TruncatedError('the stream ends inside a frame: the file is truncated'));
    },
  });
}

/** xz-decompress reads a web stream: a pass-through web stream feeds it, and Node sees one duplex. */
function xzStream(): Duplex {
  const feed = new TransformStream<Uint8Array, Uint8Array>();
  const output = new XzReadableStream(feed.readable);
  // Destroying the duplex cancels the xz reader, which frees its WebAssembly context (and the lock
  // xz-decompress holds while one runs: a later xz stream would otherwise wait for ever).
  return Duplex.fromWeb({ readable: output, writable: feed.writable });
}
