/**
 * A compressed stream (any compression of formats.ts) pushed in piece by piece (a file being read): decompressed as it comes through the inflate guard (decompress.ts) — so a decompression
 * bomb stops as soon as it expands past the guard's ratio or CHAINVISOR_EXTRACT_MAX_BYTES, not after
 * inflating whole — then, from the first decompressed bytes: a tar goes through the tar extractor
 * (the same entry rules as any tar), an executable is written as one file, `payload`, for the caller
 * to place at `bin/$DAEMON_NAME`. Anything else is refused as an unknown format. Nothing is created
 * executable here.
 */
import { once } from 'node:events';
import fs from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import { isFsError } from '../../shared/errors/index.js';
import { type BufferedWriter, createBufferedWriter } from '../../shared/fswrite/index.js';
import { ArchiveInvalidError, ArchiveLimitError, ArchiveUnsafeError, ArchiveUnsupportedError, type Subject, UnknownFormatError } from '../errors.js';
import type { ExtractLimits } from '../limits.js';
import { createDecompressor, decompressError } from './decompress.js';
import { executableKind, headLength } from './detect.js';
import { createTarExtractor, isTar, type TarExtractor } from './extract-tar.js';
import { unknownFormatHint } from './format-texts.js';
import { type Compression, compressionRow, type Format } from './formats.js';
import { createInflateGuard } from './inflate-guard.js';
import type { ExtractResult } from './tree-writer.js';

/** The file a compressed executable is written to, inside the extraction folder. */
export const payloadName = 'payload';

export interface CompressedOutcome {
  detected: { format: Format; kind: string };
  result: ExtractResult;
  /** Set for a compressed executable: `<into>/payload`, to be moved to bin/$DAEMON_NAME. */
  payload?: string;
}

export interface CompressedExtractor {
  /** Feeds the next compressed bytes; resolves when more can be taken. Ignored once it failed. */
  write(chunk: Buffer): Promise<void>;
  /** True once the stream was refused or could not be read (the reason comes from `end()`). */
  readonly failed: boolean;
  /** No more bytes: waits for the rest to be decompressed and written; throws the first failure. */
  end(): Promise<CompressedOutcome>;
  /** Stops now and waits until nothing writes any more. */
  abort(reason?: unknown): Promise<void>;
}

/** `into` must exist and be empty. */
export function createCompressedExtractor(subject: Subject, compression: Compression, into: string, limits: ExtractLimits): CompressedExtractor {
  const input = new PassThrough({ highWaterMark: 256 * 1024 });
  const guard = createInflateGuard(subject, limits);
  const head: Buffer[] = [];
  let headBytes = 0;
  let tar: TarExtractor | undefined;
  let binary: { handle: fs.FileHandle; out: BufferedWriter } | undefined;
  let outcome: CompressedOutcome | undefined;
  let failure: unknown;

  /** Decides what the decompressed bytes are, from the first of them. */
  async function begin(first: Buffer): Promise<void> {
    if (isTar(first)) {
      tar = createTarExtractor(subject, into, limits);
      await feedTar(first);
      return;
    }
    const kind = executableKind(first);
    if (kind === undefined) {
      const start = first.subarray(0, 8).toString('hex');
      const detail = `${compression}-compressed data that is neither a tar nor an executable (it starts with bytes ${start})`;
      throw new UnknownFormatError(subject, detail, unknownFormatHint);
    }
    const file = path.join(into, payloadName);
    const handle = await fs.open(file, 'wx', 0o600);
    binary = { handle, out: createBufferedWriter(handle) };
    outcome = { detected: { format: compression, kind: `${compression}-compressed ${kind}` }, result: { entries: 1, bytes: 0 }, payload: file };
    await binary.out.write(first);
  }

  async function feedTar(chunk: Buffer): Promise<void> {
    const extractor = tar as TarExtractor;
    await extractor.write(chunk);
    // Refused: end() throws why, and the decompression stops here.
    if (extractor.failed) await extractor.end();
  }

  /** A decompressed chunk, already through the guard. */
  async function take(chunk: Buffer): Promise<void> {
    if (tar !== undefined) return feedTar(chunk);
    if (binary !== undefined) return binary.out.write(chunk);
    head.push(chunk);
    headBytes += chunk.length;
    if (headBytes >= headLength) await begin(Buffer.concat(head.splice(0)));
  }

  async function finishPayload(): Promise<void> {
    if (tar === undefined && binary === undefined) {
      const first = Buffer.concat(head.splice(0));
      if (first.length === 0) throw new ArchiveInvalidError(subject, `the ${compression} stream holds no data`);
      await begin(first);
    }
    if (tar !== undefined) {
      outcome = { detected: { format: compressionRow(compression).tar.name, kind: `${compression}-compressed tar archive` }, result: await tar.end() };
      return;
    }
    const { out } = binary as NonNullable<typeof binary>;
    await out.flush();
    (outcome as CompressedOutcome).result.bytes = guard.totals.output;
  }

  const consume = async (source: AsyncIterable<Buffer>): Promise<void> => {
    try {
      for await (const chunk of source) await take(chunk);
      await finishPayload();
    } catch (error) {
      // Kept first: tearing the pipeline down then fails the decompressor too ("operation aborted").
      failure ??= error;
      // Let the tar extractor finish (or drop) the entry it is writing before anyone removes the folder.
      await tar?.abort(error);
      throw error;
    } finally {
      await binary?.handle.close();
    }
  };
  // Node's pipeline takes any number of stages and a consuming function; its types list them one by one.
  const run = pipeline as (...stages: unknown[]) => Promise<void>;
  const settled = run(input, ...createDecompressor(compression, guard), consume).then(
    () => undefined,
    (error: unknown) => {
      failure ??= error;
    },
  );

  return {
    get failed() {
      return failure !== undefined;
    },
    async write(chunk) {
      if (failure !== undefined || input.destroyed) return;
      if (!input.write(chunk)) await Promise.race([once(input, 'drain').catch(() => undefined), settled]);
    },
    async end() {
      if (!input.destroyed) input.end();
      await settled;
      if (failure !== undefined) throw translate(subject, compression, failure);
      return outcome as CompressedOutcome;
    },
    async abort(reason) {
      failure ??= reason ?? new Error('extraction stopped');
      input.destroy();
      await tar?.abort(failure);
      await settled;
    },
  };
}

function translate(subject: Subject, compression: Compression, error: unknown): Error {
  const ours = [ArchiveInvalidError, ArchiveLimitError, ArchiveUnsafeError, ArchiveUnsupportedError, UnknownFormatError];
  if (ours.some((kind) => error instanceof kind)) return error as Error;
  // A local problem (disk full, permissions) is not the archive's fault: let the caller report it.
  if (isFsError(error)) return error;
  return decompressError(subject, compression, error instanceof Error ? error : new Error(String(error)));
}
