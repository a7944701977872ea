/**
 * What a row of the formats table (formats.ts) holds. Kept apart from the table so that the code that
 * reads a row can name its shape without importing the table, which imports the decoders and the
 * extractors (imports stay one-way).
 */
import type { Subject } from '../errors.js';
import type { ExtractLimits } from '../limits.js';
import type { Decoder } from './decoder.js';
import type { TarExtractor } from './extract-tar.js';
import type { ExtractResult, TreeWriterOptions } from './tree-writer.js';

/** What the docs show of a format's first bytes: `hex` at byte `at`, and a note (what else is accepted). */
export interface Signature {
  at: number;
  /** Bytes as `1f 8b 08`. */
  hex: string;
  note?: string;
}

interface Row {
  name: string;
  /** True when `head` (a file's first bytes, up to 4 KiB) is such a file. Rows are tried in table order. */
  magic(head: Buffer): boolean;
  signature: Signature;
  /** The names go-getter's Decompressors map gives it (for the docs: the bytes, not the name, decide). */
  extensions: readonly string[];
}

/**
 * A compression: a tar or a bare executable inside, known from the first decompressed bytes. Its bytes
 * go through `decoder` and the inflate guard, as they arrive (extract-compressed.ts).
 */
export interface CompressionRow extends Row {
  kind: 'compression';
  decoder: Decoder;
  /** What it is called, and go-getter's names for it, with a tar inside. */
  tar: { name: string; extensions: readonly string[] };
}

/** An archive of entries, each checked before it is written. */
export interface ArchiveRow extends Row {
  kind: 'archive';
  /** Extracts the downloaded file (after its checksum matched). */
  extract(
    subject: Subject,
    file: string,
    into: string,
    limits: ExtractLimits,
    onProgress?: (bytes: number, total: number | undefined) => void,
  ): Promise<ExtractResult>;
  /**
   * Extracts the bytes as they arrive, for a format read from its start (a zip's directory is at its
   * end: a zip is extracted from the file). The extractor has the tar extractor's interface.
   */
  stream?(subject: Subject, into: string, limits: ExtractLimits, options: TreeWriterOptions): TarExtractor;
}

export type FormatRow = CompressionRow | ArchiveRow;
