/**
 * The one guard every decompression passes through — each compression of formats.ts and zip's entries:
 * it counts the bytes going in and coming out, and refuses the archive as soon as it expands more than
 * `maxRatio` times what went in (past the first `ratioFloor` bytes), or past CHAINVISOR_EXTRACT_MAX_BYTES.
 * Why, and the rest of its rules: docs/design/downloads.md#verifyarchiveinflate-guardts.
 */
import { Transform } from 'node:stream';

import { formatBytes } from '../../shared/units.js';
import { ArchiveLimitError, type Subject } from '../errors.js';
import { type ExtractLimits, tooLarge } from '../limits.js';

export const maxRatio = 1000;

/** Decompressed bytes allowed before the ratio applies. */
export const ratioFloor = 1 << 20;

export interface InflateGuard {
  /**
   * Where the compressed bytes the decoder has read so far are counted (its own count: what it was
   * handed may still wait in a buffer, and a 64 KiB chunk of a zstd bomb holds gigabytes). A decoder
   * that does not say is refused past the first `ratioFloor` bytes.
   */
  readFrom(count: () => number): void;
  /** Decompressed bytes that came out; throws the refusal. */
  output(n: number): void;
  /**
   * For a decoder that produces without waiting for its reader (bzip2's blocks, xz's buffer): throws
   * as `output` would for `produced`, every byte the decoder has produced so far (some may still wait
   * in buffers before the meter).
   */
  check(produced: number): void;
  readonly totals: { readonly output: number };
}

export function createInflateGuard(subject: Subject, limits: ExtractLimits): InflateGuard {
  const totals = { output: 0 };
  let read = (): number => 0;
  const refuse = (output: number): void => {
    if (output > limits.maxBytes) throw tooLarge(subject, limits);
    if (output <= ratioFloor) return;
    const input = read();
    if (output > input * maxRatio) throw tooInflated(subject, output, input);
  };
  return {
    totals,
    readFrom(count) {
      read = count;
    },
    output(n) {
      totals.output += n;
      refuse(totals.output);
    },
    check(produced) {
      refuse(Math.max(totals.output, produced));
    },
  };
}

/** The refusal of a stream that expands more than `maxRatio` times (a decompression bomb). */
function tooInflated(subject: Subject, output: number, input: number): ArchiveLimitError {
  return new ArchiveLimitError(
    subject,
    `it expands more than ${maxRatio} times its compressed size (${formatBytes(output)} out of ${formatBytes(input)} so far): a decompression bomb`,
    maxRatio,
    undefined,
  );
}

/** Counts the decompressed bytes coming out of a decoder; fails the stream with the refusal. */
export function meterOutput(guard: InflateGuard): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      try {
        guard.output(chunk.length);
      } catch (error) {
        callback(error as Error);
        return;
      }
      callback(null, chunk);
    },
  });
}
