/**
 * zstd, by Node's zlib, one decoder per frame: zstd-frames.ts finds where each frame begins and ends,
 * each frame goes to a fresh decoder, skippable frames to none. Node 26's decoder would read several
 * frames itself, Node 22's stops after the first; this way pzstd's output (a skippable frame before
 * each frame) and `cat a.zst b.zst` are read whole by both. A frame whose window is larger than the
 * decoder's limit (128 MiB, zstd's own default) is refused by the decoder before it allocates it.
 */
import { once } from 'node:events';
import { Duplex } from 'node:stream';
import { finished } from 'node:stream/promises';
import { createZstdDecompress, type ZstdDecompress } from 'node:zlib';

type Zstd = ZstdDecompress;

import type { Decoder } from './decoder.js';
import type { InflateGuard } from './inflate-guard.js';
import { StreamError, truncated } from './stream-error.js';
import { beginsZstd, createZstdFrameWalk } from './zstd-frames.js';

/** A zstd frame, or the skippable frame pzstd writes first. */
export const isZstd = beginsZstd;

export const zstd: Decoder = {
  stages: (guard) => [zstdFrames(guard)],
  explain: (error) => {
    if (error instanceof StreamError) return error.message;
    if (/too much memory/.test(error.message)) return `a frame needs a larger window than the decoder allows (${error.message})`;
    return `corrupt data (${error.message})`;
  },
};

function zstdFrames(guard: InflateGuard): Duplex {
  const walk = createZstdFrameWalk();
  let current: Zstd | undefined;
  /** Compressed bytes read by the decoders of the frames already ended. */
  let read = 0;
  guard.readFrom(() => read + (current?.bytesWritten ?? 0));

  const open = (): Zstd => {
    const decoder = createZstdDecompress();
    decoder.on('data', (data: Buffer) => {
      // Read only as fast as the reader reads: `read()` resumes it.
      if (!frames.push(data)) decoder.pause();
    });
    decoder.on('error', (error) => frames.destroy(error));
    current = decoder;
    return decoder;
  };
  const write = async (bytes: Buffer): Promise<void> => {
    const decoder = current ?? open();
    if (!decoder.write(bytes)) await once(decoder, 'drain');
  };
  const end = async (): Promise<void> => {
    const decoder = current ?? open();
    decoder.end();
    await finished(decoder);
    read += decoder.bytesWritten;
    current = undefined;
  };

  const frames: Duplex = new Duplex({
    write(chunk: Buffer, _encoding, callback) {
      const pieces: Array<Buffer | null> = [];
      try {
        walk.push(chunk, (piece) => pieces.push(piece));
      } catch (error) {
        callback(new StreamError((error as Error).message));
        return;
      }
      void (async () => {
        for (const piece of pieces) await (piece === null ? end() : write(piece));
      })().then(() => callback(), callback);
    },
    final(callback) {
      if (!walk.complete) {
        callback(truncated('the stream ends inside a frame'));
        return;
      }
      frames.push(null);
      callback();
    },
    read() {
      current?.resume();
    },
    destroy(error, callback) {
      current?.destroy();
      callback(error);
    },
  });
  return frames;
}
