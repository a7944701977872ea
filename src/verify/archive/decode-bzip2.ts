/**
 * bzip2 decompression as a Node transform, driving unbzip2-stream's decoder (pure JavaScript) one
 * block at a time. unbzip2-stream's own stream decodes every remaining block at once when its input
 * ends — a few hundred bytes of bzip2 bomb would inflate whole before anyone could count them — and
 * collects each block in an array of numbers. Here the decoded bytes leave in 64 KiB pieces, and a
 * block (up to ~46 MB from a few bytes) is decoded without waiting for its reader, so each piece is
 * put to the inflate guard as it is decoded: a bomb stops in the middle of a block.
 */
import { Transform } from 'node:stream';

// unbzip2-stream's decoder and bit reader (CommonJS; types in unbzip2-stream.d.ts).
import bitIterator from 'unbzip2-stream/lib/bit_iterator.js';
import decoder from 'unbzip2-stream/lib/bzip2.js';

import type { Decoder } from './decoder.js';
import type { InflateGuard } from './inflate-guard.js';
import { StreamError, truncated } from './stream-error.js';

type BitReader = ReturnType<typeof bitIterator>;

const piece = 64 * 1024;

export const bzip2: Decoder = {
  // `BZh` and the block size digit.
  magic: (b) => b.length >= 4 && b[0] === 0x42 && b[1] === 0x5a && b[2] === 0x68 && (b[3] as number) >= 0x31 && (b[3] as number) <= 0x39,
  stages: (guard) => [createBzip2Decompress(guard)],
  explain: (error) => (error instanceof StreamError ? error.message : `corrupt data (${error.message})`),
};

function createBzip2Decompress(guard: InflateGuard): Transform {
  const queue: Buffer[] = [];
  let received = 0;
  let bits: BitReader | undefined;
  let blockSize = 0;
  let streamCRC: number | null = null;
  /** Every byte decoded so far (some may wait in buffers before the guard's meter). */
  let produced = 0;

  /** Decodes the stream header or one block; pushes its bytes. */
  const step = (push: (data: Buffer) => void): void => {
    const reader = bits as BitReader;
    if (blockSize === 0) {
      blockSize = decoder.header(reader);
      streamCRC = 0;
      return;
    }
    let out = Buffer.allocUnsafe(piece);
    let filled = 0;
    const write = (byte: number): void => {
      out[filled++] = byte;
      if (filled === piece) {
        produced += filled;
        guard.check(produced);
        push(out);
        out = Buffer.allocUnsafe(piece);
        filled = 0;
      }
    };
    const bufsize = 100_000 * blockSize;
    streamCRC = decoder.decompress(reader, write, new Int32Array(bufsize), bufsize, streamCRC as number);
    if (filled > 0) {
      produced += filled;
      guard.check(produced);
      push(out.subarray(0, filled));
    }
    // End of this stream: another may follow (pbzip2 and lbzip2 write several).
    if (streamCRC === null) blockSize = 0;
  };

  const run = (transform: Transform, final: boolean): void => {
    if (bits === undefined) {
      const reader = bitIterator(() => queue.shift());
      guard.readFrom(() => reader.bytesRead);
      bits = reader;
    }
    const push = (data: Buffer): void => void transform.push(data);
    // A whole block (at most 100 kB per level, plus its tables) must be here before decoding it.
    while (final ? received > bits.bytesRead : received - bits.bytesRead + 1 >= 25_000 + 100_000 * blockSize) step(push);
    if (final && streamCRC !== null) throw truncated();
  };

  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      queue.push(chunk);
      received += chunk.length;
      try {
        run(this, false);
      } catch (error) {
        callback(asError(error));
        return;
      }
      callback();
    },
    flush(callback) {
      try {
        if (received > 0) run(this, true);
      } catch (error) {
        callback(asError(error));
        return;
      }
      callback();
    },
  });
}

/** The decoder reads past its last buffer (a TypeError) when a block is cut short. */
function asError(error: unknown): Error {
  if (error instanceof TypeError) return truncated();
  return error instanceof Error ? error : new Error(String(error));
}
