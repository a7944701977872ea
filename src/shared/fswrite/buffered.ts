/**
 * Writes a stream of small chunks to a file in 1 MiB writes: far fewer system calls than a write per
 * 16–64 KiB chunk, and no garbage per chunk, so memory stays flat whatever the size. Two buffers take
 * turns: one fills while the other is being written, so the caller (the socket, the archive reader)
 * keeps going during the disk write instead of waiting for it — at most one write is in flight.
 * Used by the download (socket → file) and by extraction (archive → files).
 */
import type { FileHandle } from 'node:fs/promises';

const bufferSize = 1 << 20;

export interface BufferedWriter {
  /** Copies `chunk` in; starts a write whenever the buffer fills (waiting for the one before). */
  write(chunk: Uint8Array): Promise<void>;
  /** Writes what is buffered and waits until every write has finished. */
  flush(): Promise<void>;
  /** File offset after everything written so far (flushed or not). */
  readonly position: number;
}

export function createBufferedWriter(handle: FileHandle, start = 0): BufferedWriter {
  let buffer: Buffer = Buffer.allocUnsafeSlow(bufferSize);
  /** The other buffer, once its write finished (allocated on first need). */
  let spare: Buffer | undefined;
  let filled = 0;
  /** Where the next write goes: everything before it is written or being written. */
  let next = start;
  let inFlight: Promise<void> | undefined;

  const writeAll = async (data: Buffer, length: number, position: number): Promise<void> => {
    for (let offset = 0; offset < length;) {
      const { bytesWritten } = await handle.write(data, offset, length - offset, position + offset);
      offset += bytesWritten;
    }
  };
  /** Waits for the write in flight; its error (disk full…) surfaces here. */
  const settle = async (): Promise<void> => {
    const pending = inFlight;
    inFlight = undefined;
    await pending;
  };
  const send = async (): Promise<void> => {
    await settle();
    const data = buffer;
    const length = filled;
    const position = next;
    next += length;
    filled = 0;
    buffer = spare ?? Buffer.allocUnsafeSlow(bufferSize);
    spare = undefined;
    inFlight = writeAll(data, length, position).then(() => {
      spare = data;
    });
    // Handled by the next settle(); this only keeps an early failure from counting as unhandled.
    inFlight.catch(() => undefined);
  };

  return {
    get position() {
      return next + filled;
    },
    async flush() {
      if (filled > 0) await send();
      await settle();
    },
    async write(chunk) {
      for (let offset = 0; offset < chunk.length;) {
        const n = Math.min(chunk.length - offset, bufferSize - filled);
        buffer.set(chunk.subarray(offset, offset + n), filled);
        filled += n;
        offset += n;
        if (filled === bufferSize) await send();
      }
    },
  };
}
