/**
 * The one way compressed bytes become decompressed bytes: the decoder of their compression (its row of
 * formats.ts), which tells the inflate guard what it has read, then the guard's meter of what came
 * out, so that every compression of the table, and whichever is added next, is stopped by the same
 * ratio and byte cap, in the same place.
 * Errors come out as ArchiveInvalidError (`CHAINVISOR_ARCHIVE_INVALID`) saying what was wrong, as
 * ArchiveUnsupportedError for a stream made with an option chainvisor does not read, or as
 * DecoderUnavailableError when this build's decoder itself cannot be used.
 */
import type { Duplex } from 'node:stream';

import { ArchiveInvalidError, ArchiveUnsupportedError, DecoderUnavailableError, type Subject } from '../errors.js';
import { type Compression, compressionRow } from './formats.js';
import { type InflateGuard, meterOutput } from './inflate-guard.js';
import { DecoderUnavailable, UnsupportedError } from './stream-error.js';

/** The stages to put between the compressed bytes and their reader, in order. */
export function createDecompressor(compression: Compression, guard: InflateGuard): Duplex[] {
  return [...compressionRow(compression).decoder.stages(guard), meterOutput(guard)];
}

/** A decompressor's failure in the operator's terms. */
export function decompressError(
  subject: Subject,
  compression: Compression,
  error: Error,
): ArchiveInvalidError | ArchiveUnsupportedError | DecoderUnavailableError {
  if (error instanceof DecoderUnavailable) return new DecoderUnavailableError(subject, compression, error.message);
  const detail = `${compression} data: ${compressionRow(compression).decoder.explain(error)}`;
  return error instanceof UnsupportedError ? new ArchiveUnsupportedError(subject, detail) : new ArchiveInvalidError(subject, detail, error);
}
