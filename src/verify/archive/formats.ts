/**
 * The formats chainvisor reads, one row each: how a file of it begins, whether it is a compression
 * (a tar or a bare executable inside, decompressed as it is read) or an archive of entries, the
 * decoder or extractor that reads it, and go-getter's names for it. go-getter's `Decompressors` map
 * is the model.
 * Why, and the rest of its rules: docs/design/downloads.md#verifyarchiveformatsts.
 */
import type { Subject } from '../errors.js';
import type { ExtractLimits } from '../limits.js';
import { bzip2, isBzip2 } from './decode-bzip2.js';
import { gzip, isGzip } from './decode-gzip.js';
import { isXz, xz } from './decode-xz.js';
import { isZstd, zstd } from './decode-zstd.js';
import type { Decoder } from './decoder.js';
import { extractTar, isTar } from './extract-tar.js';
import { extractZip, isZip } from './extract-zip.js';
import type { ExtractResult } from './tree-writer.js';

interface Row {
  name: string;
  /** True when `head` (a file's first bytes, up to 4 KiB) is such a file. Rows are tried in table order. */
  magic(head: Buffer): boolean;
  /**
   * What the docs show of those first bytes: `hex` (`1f 8b 08`) at byte `at`, and what else `magic`
   * accepts. The table's test checks that each sample begins so.
   */
  signature: { at: number; hex: string; note?: string };
  /** The names go-getter's Decompressors map gives it (for the docs and the hint: the bytes, not the name, decide). */
  extensions: readonly string[];
}

/** A compression: a tar or a bare executable inside, known from the first decompressed bytes (extract-compressed.ts). */
interface CompressionRow extends Row {
  kind: 'compression';
  /** Its bytes go through the decoder's stages, then the inflate guard, as they arrive. */
  decoder: Decoder;
  /** What it is called, and go-getter's names for it, with a tar inside. */
  tar: { name: string; extensions: readonly string[] };
}

/** An archive of entries, each checked before it is written. */
interface ArchiveRow extends Row {
  kind: 'archive';
  /** Extracts the downloaded file, once its checksum matched. */
  extract(
    subject: Subject,
    file: string,
    into: string,
    limits: ExtractLimits,
    onProgress?: (bytes: number, total: number | undefined) => void,
  ): Promise<ExtractResult>;
}

/** In the order detection tries them: tar's header is the weakest sign, so it comes last. */
export const formats = [
  {
    name: 'gzip',
    kind: 'compression',
    magic: isGzip,
    signature: { at: 0, hex: '1f 8b 08' },
    decoder: gzip,
    extensions: ['gz'],
    tar: { name: 'tar.gz', extensions: ['tar.gz', 'tgz'] },
  },
  {
    name: 'bzip2',
    kind: 'compression',
    magic: isBzip2,
    signature: { at: 0, hex: '42 5a 68', note: '(`BZh`) and a block size, `1`–`9`' },
    decoder: bzip2,
    extensions: ['bz2'],
    tar: { name: 'tar.bz2', extensions: ['tar.bz2', 'tbz2'] },
  },
  {
    name: 'xz',
    kind: 'compression',
    magic: isXz,
    signature: { at: 0, hex: 'fd 37 7a 58 5a 00' },
    decoder: xz,
    extensions: ['xz'],
    tar: { name: 'tar.xz', extensions: ['tar.xz', 'txz'] },
  },
  {
    name: 'zstd',
    kind: 'compression',
    magic: isZstd,
    signature: { at: 0, hex: '28 b5 2f fd', note: 'or a skippable frame (pzstd)' },
    decoder: zstd,
    extensions: ['zst'],
    tar: { name: 'tar.zst', extensions: ['tar.zst', 'tzst'] },
  },
  {
    name: 'zip',
    kind: 'archive',
    magic: isZip,
    signature: { at: 0, hex: '50 4b 03 04', note: 'or `50 4b 05 06` (an empty zip)' },
    extract: extractZip,
    extensions: ['zip'],
  },
  {
    name: 'tar',
    kind: 'archive',
    magic: isTar,
    signature: { at: 257, hex: '75 73 74 61 72', note: '(`ustar`), or an old header whose checksum adds up' },
    extract: extractTar,
    extensions: ['tar'],
  },
] as const satisfies readonly (CompressionRow | ArchiveRow)[];

/** A row of the table, with its names as literals. */
export type FormatRow = (typeof formats)[number];
export type CompressionFormatRow = Extract<FormatRow, { kind: 'compression' }>;

/** The name of a compression of the table. */
export type Compression = CompressionFormatRow['name'];

/** What was unpacked: a plain executable, or a row's name (a compression with a tar inside: its tar name). */
export type Format = 'executable' | FormatRow['name'] | CompressionFormatRow['tar']['name'];

export const compressionRows: readonly CompressionFormatRow[] = formats.filter((row): row is CompressionFormatRow => row.kind === 'compression');

export const archiveRows: readonly Extract<FormatRow, { kind: 'archive' }>[] = formats.filter(
  (row): row is Extract<FormatRow, { kind: 'archive' }> => row.kind === 'archive',
);

export function compressionRow(name: Compression): CompressionFormatRow {
  return compressionRows.find((row) => row.name === name) as CompressionFormatRow;
}
