/**
 * bzip2 decompression as a Node stream, driving unbzip2-stream's decoder (pure JavaScript) one block
 * at a time. unbzip2-stream's own stream decodes every remaining block at once when its input ends —
 * a few hundred bytes of bzip2 bomb would inflate whole before anyone could count them — and
 * collects each block in an array of numbers.
 * Why, and the rest of its rules: docs/design/downloads.md#verifyarchivedecode-bzip2ts.
 */
import { Duplex } from 'node:stream';

// unbzip2-stream's decoder and bit reader (CommonJS; types in unbzip2-stream.d.ts).
import bitIterator from 'unbzip2-stream/lib/bit_iterator.js';
import decoder from 'unbzip2-stream/lib/bzip2.js';

import { createDecodePump } from './decode-pump.js';
import type { Decoder } from './decoder.js';
import type { InflateGuard } from './inflate-guard.js';
import { StreamError, truncated } from './stream-error.js';

type BitReader = ReturnType<typeof bitIterator>;

const piece = 64 * 1024;

/** `BZh` and the block size digit. */
export const isBzip2 = (b: Buffer): boolean =>
  b.length >= 4 && b[0] === 0x42 && b[1] === 0x5a && b[2] === 0x68 && (b[3] as number) >= 0x31 && (b[3] as number) <= 0x39;

export const bzip2: Decoder = {
  stages: (guard) => [createBzip2Decompress(guard)],
  explain: (error) => (error instanceof StreamError ? error.message : `corrupt data (${error.message})`),
};

function createBzip2Decompress(guard: InflateGuard): Duplex {
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

  /** Bytes a block can take (at most 100 kB per level, plus its tables): a whole one must be here before decoding it. */
  const blockBytes = (): number => 25_000 + 100_000 * blockSize;
  const unread = (): number => received - (bits?.bytesRead ?? 0);
  /** The reader has enough: decode the next block on its next read(). */
  let readerFull = false;
  /** A write's callback, held while two blocks' worth of input wait; `final`'s, once the input ended. */
  let held: (() => void) | undefined;
  let last: (() => void) | undefined;
  const push = (data: Buffer): void => {
    readerFull = !stream.push(data);
  };

  /** Decodes whole blocks while the reader wants more; ends the stream after the last one. */
  const pump = createDecodePump({
    work() {
      if (bits === undefined) return;
      const ending = last !== undefined;
      while (!readerFull && (ending ? unread() > 0 : unread() + 1 >= blockBytes())) step(push);
      if (ending && unread() <= 0) {
        if (streamCRC !== null) throw truncated();
        const done = last as () => void;
        last = undefined;
        stream.push(null);
        done();
      }
      if (held !== undefined && unread() < 2 * blockBytes()) {
        const done = held;
        held = undefined;
        done();
      }
    },
    readerFull: () => readerFull,
    fail: (error) => stream.destroy(asError(error)),
  });

  const stream: Duplex = new Duplex({
    write(chunk: Buffer, _encoding, callback) {
      queue.push(chunk);
      received += chunk.length;
      if (bits === undefined) {
        // It takes its first buffer at once.
        const reader = bitIterator(() => queue.shift());
        guard.readFrom(() => reader.bytesRead);
        bits = reader;
      }
      held = callback;
      pump();
    },
    final(callback) {
      if (received === 0) {
        stream.push(null);
        callback();
        return;
      }
      last = callback;
      pump();
    },
    read() {
      readerFull = false;
      pump();
    },
  });
  return stream;
}

/** The decoder reads past its last buffer (a TypeError) when a block is cut short. */
function asError(error: unknown): Error {
  if (error instanceof TypeError) return truncated();
  return error instanceof Error ? error : new Error(String(error));
}
