/**
 * Unpacking a tar, or a compressed stream (a tar or a bare executable inside), while it downloads,
 * into a quarantine folder, so that extraction does not wait for the last byte (the download and the
 * extraction overlap instead of running one after the other).
 * Why, and the rest of its rules: docs/design/downloads.md#verifystream-unpackts.
 */
import fs from 'node:fs/promises';

import { type CompressedExtractor, createCompressedExtractor, detectFromHead, type Format, headLength, type TarExtractor } from './archive/index.js';
import { ArchiveLimitError, type Subject } from './errors.js';
import type { ExtractLimits } from './limits.js';
import { finishCompressed, finishTree, type Unpacked } from './unpack.js';

export interface StreamUnpackOptions {
  subject: Subject;
  /** Created on the first archive bytes; must not exist. Removed by `restart()` and `discard()`. */
  quarantine: string;
  limits: ExtractLimits;
}

export interface StreamUnpacker {
  /** The next bytes of the download, in order. Never throws: a failure waits for `finish()`. */
  write(chunk: Buffer): Promise<void>;
  /** The server is sending the file from the start again: drop what was extracted, start afresh. */
  restart(): Promise<void>;
  /**
   * Only after the checksum matched: completes the extraction, gives the execute bits back, moves the
   * quarantine folder to `tree` and finds the binary. Undefined when the format was not streamed.
   */
  finish(options: { tree: string; name: string; platform?: string }): Promise<Unpacked | undefined>;
  /** Stops and removes the quarantine folder (checksum mismatch, failed download). */
  discard(): Promise<void>;
  /** False while a tar or compressed stream is being extracted: the downloaded file itself is then never read. */
  readonly needsFile: boolean;
  /** Set once the archive is refused whatever its checksum (a bomb): the download should stop. */
  readonly refusal: ArchiveLimitError | undefined;
  /** Bytes written since the start (or the last restart). */
  readonly received: number;
}

type State =
  /** Collecting the first bytes to recognise the format. */
  | { kind: 'head'; chunks: Buffer[]; length: number }
  /** An archive whose row streams (tar): its entries are written as they arrive. */
  | { kind: 'archive'; detected: { format: Format; kind: string }; extractor: TarExtractor }
  | { kind: 'compressed'; extractor: CompressedExtractor }
  /** Not streamed (zip, executable, unknown): the downloaded file is unpacked after the checksum. */
  | { kind: 'file' }
  /** Refused or failed: the extractor's reason, or why the quarantine folder could not be created or removed. */
  | { kind: 'failed'; error: unknown };

export function createStreamUnpacker(options: StreamUnpackOptions): StreamUnpacker {
  const { subject, quarantine, limits } = options;
  let state: State = { kind: 'head', chunks: [], length: 0 };
  let received = 0;

  async function start(head: Buffer): Promise<void> {
    const detected = detectFromHead(head.subarray(0, headLength));
    const row = detected.format === 'unknown' ? undefined : detected.row;
    // Left for after the download: an executable (no row), an unknown file, an archive its row does not stream (zip).
    if (detected.format === 'unknown' || row === undefined || (row.kind === 'archive' && !('stream' in row))) {
      state = { kind: 'file' };
      return;
    }
    try {
      await fs.mkdir(quarantine, { mode: 0o700 });
    } catch (error) {
      state = { kind: 'failed', error };
      return;
    }
    if (row.kind === 'compression') {
      const extractor = createCompressedExtractor(subject, row.name, quarantine, limits, { holdExecBits: true });
      state = { kind: 'compressed', extractor };
      await extractor.write(head);
      return;
    }
    const extractor = row.stream(subject, quarantine, limits, { holdExecBits: true });
    state = { kind: 'archive', detected: { format: detected.format, kind: detected.kind }, extractor };
    await extractor.write(head);
  }

  /** The extractor refused the archive: keep why for `finish()`, and free the disk now. */
  async function refused(): Promise<void> {
    if (state.kind !== 'archive' && state.kind !== 'compressed') return;
    const { extractor } = state;
    let error: unknown;
    try {
      await extractor.end();
    } catch (reason) {
      error = reason;
    }
    try {
      await fs.rm(quarantine, { recursive: true, force: true });
    } catch (reason) {
      error ??= reason;
    }
    state = { kind: 'failed', error: error ?? new Error('the extraction stopped') };
  }

  async function stop(): Promise<void> {
    if (state.kind === 'archive' || state.kind === 'compressed') await state.extractor.abort();
    await fs.rm(quarantine, { recursive: true, force: true });
  }

  return {
    get needsFile() {
      return state.kind === 'head' || state.kind === 'file';
    },
    get refusal() {
      return state.kind === 'failed' && state.error instanceof ArchiveLimitError ? state.error : undefined;
    },
    get received() {
      return received;
    },
    async write(chunk) {
      received += chunk.length;
      if (state.kind === 'archive' || state.kind === 'compressed') {
        await state.extractor.write(chunk);
      } else if (state.kind === 'head') {
        state.chunks.push(chunk);
        state.length += chunk.length;
        if (state.length >= headLength) await start(Buffer.concat(state.chunks));
      }
      const current: State = state;
      if ((current.kind === 'archive' || current.kind === 'compressed') && current.extractor.failed) await refused();
    },

    async restart() {
      received = 0;
      try {
        await stop();
        state = { kind: 'head', chunks: [], length: 0 };
      } catch (error) {
        state = { kind: 'failed', error };
      }
    },

    async finish({ tree, name, platform }) {
      // A file shorter than the detection window: the whole file is the head.
      if (state.kind === 'head' && state.length > 0) await start(Buffer.concat(state.chunks));
      const current: State = state;
      if (current.kind === 'failed') throw current.error;
      if (current.kind === 'compressed') {
        const outcome = await current.extractor.end();
        await current.extractor.releaseExecBits();
        await fs.rename(quarantine, tree);
        return finishCompressed({ subject, tree, name, platform, outcome });
      }
      if (current.kind !== 'archive') return undefined;
      const result = await current.extractor.end();
      await current.extractor.releaseExecBits();
      await fs.rename(quarantine, tree);
      return finishTree({ subject, tree, name, platform, detected: current.detected, result });
    },

    discard: stop,
  };
}
