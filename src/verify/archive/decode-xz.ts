/**
 * xz: xz-container.ts reads the container on the way in (filters, dictionary, the SHA-256 check),
 * the decoder is xz-embedded compiled to WebAssembly (xz-wasm.ts: the package xz-decompress, inlined
 * in its JavaScript, so it works inside the single executable's bundle), and a last stage verifies
 * the SHA-256 of each block of a stream that has that check.
 * Why, and the rest of its rules: docs/design/downloads.md#verifyarchivedecode-xzts.
 */
import { createHash, type Hash } from 'node:crypto';
import { Duplex, Transform } from 'node:stream';

import { createDecodePump } from './decode-pump.js';
import type { Decoder } from './decoder.js';
import type { InflateGuard } from './inflate-guard.js';
import { StreamError, truncated } from './stream-error.js';
import { maxDictionary } from './xz-block-header.js';
import { type BlockCheck, createXzContainerWalk } from './xz-container.js';
import { createXzContext, instantiateXz, type XzContext } from './xz-wasm.js';

/** The stream header's magic, `fd 37 7a 58 5a 00`. */
export const isXz = (b: Buffer): boolean => b.length >= 6 && b[0] === 0xfd && b[1] === 0x37 && b[2] === 0x7a && b[3] === 0x58 && b[4] === 0x5a && b[5] === 0x00;

export const xz: Decoder = {
  stages: (guard) => {
    const checks: BlockCheck[] = [];
    return [containerWalk(checks), decoder(guard), verifySha256(checks)];
  },
  explain: (error) => {
    if (error instanceof StreamError) return error.message;
    const code = error instanceof XzCodeError ? error.code : undefined;
    // xz-embedded's codes (xz.h: enum xz_ret).
    const xzCodes: Record<number, string> = {
      2: 'the integrity check type is not supported',
      3: 'out of memory',
      4: `the dictionary is larger than the ${maxDictionary >> 20} MiB the decoder reads`,
      5: 'not an xz stream, or bytes after its end that are not another stream',
      6: 'unsupported xz options',
      7: 'corrupt data (a check or size does not match)',
      8: 'the stream ends before its end marker: the file is truncated',
    };
    return code === undefined ? error.message : (xzCodes[code] ?? `decoder error ${code}`);
  },
};

class XzCodeError extends Error {
  constructor(readonly code: number) {
    super(`xz decoder error ${code}`);
  }
}

function containerWalk(checks: BlockCheck[]): Transform {
  const walk = createXzContainerWalk(checks);
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      try {
        walk.push(chunk, (bytes) => void this.push(bytes));
      } catch (error) {
        callback(error as Error);
        return;
      }
      callback();
    },
    flush(callback) {
      callback(walk.complete ? null : truncated());
    },
  });
}

const okay = 0;
const streamEnd = 1;

/**
 * The decoder as a stream that decodes only while its reader reads: a piece of output goes to the
 * inflate guard, then to the reader, and when the reader has enough the decoding waits, in the middle
 * of an input piece if need be. (A Transform would not: it pushes all its input gives at once — up to
 * 2 MiB per LZMA2 chunk — and, once its input has ended, takes every chunk still queued without
 * waiting, so a stream that expands a few hundred times, under the guard's ratio, sat whole in memory.)
 */
function decoder(guard: InflateGuard): Duplex {
  let decode: XzContext | undefined;
  /** The written chunk being decoded, how far it was handed over, and its write's callback. */
  let chunk: { data: Buffer; at: number; done: (error?: Error | null) => void } | undefined;
  /** Bytes handed to the decoder and not yet all read by it (0: it needs input). */
  let supplied = 0;
  /** Bytes of input the decoder has read whole. */
  let read = 0;
  let produced = 0;
  /** `final`'s callback, once every chunk was decoded; then whether the empty input that ends it was handed over. */
  let last: ((error?: Error | null) => void) | undefined;
  let endSupplied = false;
  let idle = 0;
  let ended = false;
  /** The reader has enough: decode again on its next read(). */
  let readerFull = false;
  guard.readFrom(() => read + (supplied > 0 && decode !== undefined ? decode.position() : 0));

  /** Gives the decoder its next input; false when there is none until the next write or final. */
  const feed = (context: XzContext): boolean => {
    if (chunk !== undefined && chunk.at < chunk.data.length) {
      if (ended) throw new StreamError('bytes after the end of the xz stream');
      const piece = chunk.data.subarray(chunk.at, chunk.at + context.bufSize);
      chunk.at += piece.length;
      context.supply(piece);
      supplied = piece.length;
      return true;
    }
    if (chunk !== undefined) {
      const { done } = chunk;
      chunk = undefined;
      done();
      return false;
    }
    if (last !== undefined && !ended && !endSupplied) {
      // An empty input tells xz-embedded that the stream is over.
      context.supply(new Uint8Array(0));
      endSupplied = true;
      return true;
    }
    return false;
  };

  const decodeSome = (context: XzContext): void => {
    while (!readerFull) {
      if (ended) {
        // Completes the last write, or refuses bytes that follow the end.
        feed(context);
        return;
      }
      if (supplied === 0 && !endSupplied && !feed(context)) return;
      const { code, out, full: bufferFull } = context.next();
      if (code !== okay && code !== streamEnd) throw new XzCodeError(code);
      if (out.length > 0) {
        produced += out.length;
        guard.check(produced);
        readerFull = !stream.push(out);
      }
      if (code === streamEnd) {
        ended = true;
        read += supplied;
        supplied = 0;
      } else if (endSupplied) {
        // At the end of input the decoder says STREAM_END or an error; never loop on no progress.
        idle = out.length === 0 ? idle + 1 : 0;
        if (idle > 2) throw truncated();
      } else if (!bufferFull && context.needsInput()) {
        read += supplied;
        supplied = 0;
      }
    }
  };

  /** Decodes until the reader has enough or the input runs out; ends the stream after the last byte. */
  const pump = createDecodePump({
    work() {
      if (decode === undefined) return;
      decodeSome(decode);
      if (ended && last !== undefined && chunk === undefined) {
        const done = last;
        last = undefined;
        stream.push(null);
        done();
      }
    },
    readerFull: () => readerFull,
    fail: (error) => stream.destroy(error as Error),
  });

  const open = async (): Promise<void> => {
    if (decode !== undefined) return;
    const x = await instantiateXz();
    if (!stream.destroyed) decode ??= createXzContext(x);
  };

  const stream: Duplex = new Duplex({
    write(data: Buffer, _encoding, callback) {
      open().then(() => {
        chunk = { data, at: 0, done: callback };
        pump();
      }, callback);
    },
    final(callback) {
      open().then(() => {
        last = callback;
        pump();
      }, callback);
    },
    read() {
      readerFull = false;
      pump();
    },
    destroy(error, callback) {
      decode?.dispose();
      decode = undefined;
      callback(error);
    },
  });
  return stream;
}

/** Hashes each block of a SHA-256 stream as it comes out of the decoder and compares it with its check. */
function verifySha256(checks: BlockCheck[]): Transform {
  let fed = 0;
  let hash: Hash | undefined;
  /** Ends the first block once it is whole and its check is known. */
  const settle = (): void => {
    for (;;) {
      const block = checks[0];
      if (block === undefined || block.size === undefined || fed < block.size) return;
      if (block.wantsSha256) {
        if (block.sha256 === undefined) return;
        const digest = (hash ?? createHash('sha256')).digest();
        if (!digest.equals(block.sha256)) throw new StreamError('corrupt data (a block does not match its SHA-256 check)');
      }
      checks.shift();
      fed = 0;
      hash = undefined;
    }
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      try {
        let at = 0;
        while (at < chunk.length) {
          settle();
          const block = checks[0];
          if (block === undefined) throw new StreamError('corrupt data (more bytes than the blocks hold)');
          const n = block.size === undefined ? chunk.length - at : Math.min(block.size - fed, chunk.length - at);
          if (block.wantsSha256) (hash ??= createHash('sha256')).update(chunk.subarray(at, at + n));
          fed += n;
          at += n;
          // A whole block whose check is not read yet: the next bytes cannot come before it is.
          if (n === 0) throw new StreamError('corrupt data (a block holds more bytes than its chunks)');
        }
        settle();
        callback(null, chunk);
      } catch (error) {
        callback(error as Error);
      }
    },
    flush(callback) {
      try {
        settle();
        callback(checks.length === 0 ? null : truncated());
      } catch (error) {
        callback(error as Error);
      }
    },
  });
}
