/**
 * The formats chainvisor reads, one row each: how a file of it begins, whether it is a compression (a
 * tar or a bare executable inside) or an archive of entries, the decoder or extractor that reads it,
 * and go-getter's names for it. go-getter's `Decompressors` map is the model. Everything else is
 * derived from this table: the `Format` type, detection (format.ts), which extractor runs (unpack.ts,
 * stream-unpack.ts), the name of a compressed tar, the CHAINVISOR_UNKNOWN_FORMAT hint, `check-plan
 * --help` and the docs' table (format-texts.ts). So a new format is its decoder's file, one row here
 * and a test (test/verify/archive/formats.test.ts fails on a row it has no sample for); every
 * compression's output goes through the same inflate guard (decompress.ts) the day it is added.
 */
import { bzip2, isBzip2 } from './decode-bzip2.js';
import { gzip, isGzip } from './decode-gzip.js';
import { isXz, xz } from './decode-xz.js';
import { isZstd, zstd } from './decode-zstd.js';
import { createTarExtractor, extractTar, isTar } from './extract-tar.js';
import { extractZip, isZip } from './extract-zip.js';
import type { FormatRow } from './format-row.js';

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
    stream: createTarExtractor,
    extensions: ['tar'],
  },
] as const satisfies readonly FormatRow[];

type Row = (typeof formats)[number];

/** A row of the table, with its names as literals. */
export type TableRow = Row;
export type CompressionTableRow = Extract<Row, { kind: 'compression' }>;
export type ArchiveTableRow = Extract<Row, { kind: 'archive' }>;

/** The name of a compression of the table. */
export type Compression = CompressionTableRow['name'];

/** What was unpacked: a plain executable, or a row's name (a compression with a tar inside: its tar name). */
export type Format = 'executable' | Row['name'] | CompressionTableRow['tar']['name'];

export const compressionRows: readonly CompressionTableRow[] = formats.filter((row): row is CompressionTableRow => row.kind === 'compression');

export const archiveRows: readonly ArchiveTableRow[] = formats.filter((row): row is ArchiveTableRow => row.kind === 'archive');

export function compressionRow<C extends Compression>(name: C): Extract<CompressionTableRow, { name: C }> {
  return compressionRows.find((row) => row.name === name) as Extract<CompressionTableRow, { name: C }>;
}
