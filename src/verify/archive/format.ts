/**
 * What a downloaded file is, from its bytes rather than its name: URLs often end in `?…` or carry no
 * extension, and a name can lie. Executables are recognised by their magic numbers so that an HTML
 * error page (or anything else) is never installed as a node binary.
 */
import { constants, gunzipSync } from 'node:zlib';

import { notReadError, openRegular } from '../../shared/fsread/index.js';
import { type Compression, compressionOf, decoders } from './decoders.js';

/**
 * What was unpacked. `gzip`, `bzip2`, `xz` and `zstd` alone are a compressed executable; whether a tar
 * is inside such a stream is known for certain only once it is decompressed (see
 * extract-compressed.ts), so `detectFromHead` names the compression (gzip's first bytes are inflated
 * to tell tar.gz from gzip in messages) and the extraction names the result.
 */
export type Format = 'executable' | 'tar' | 'tar.gz' | 'gzip' | 'zip' | 'tar.bz2' | 'bzip2' | 'tar.xz' | 'xz' | 'tar.zst' | 'zstd';

/** `compression`: the decoder the bytes go through (decoders.ts), for every compressed format. */
export type Detected = { format: Format; kind: string; compression?: Compression } | { format: 'unknown'; kind: string };

/** How many first bytes decide the format. */
export const headLength = 4096;

export async function detectFormat(file: string): Promise<Detected> {
  const opened = await openRegular(file);
  if (opened.status !== 'ok') throw notReadError(file, opened);
  const { handle } = opened;
  let head: Buffer;
  try {
    const buffer = Buffer.alloc(headLength);
    const { bytesRead } = await handle.read(buffer, 0, headLength, 0);
    head = buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  return detectFromHead(head);
}

/** Classifies the first bytes of a file (at least 512 for tar, more for gzip). */
export function detectFromHead(head: Buffer): Detected {
  if (head.length === 0) return { format: 'unknown', kind: 'the file is empty' };
  if (decoders.gzip.magic(head)) {
    const inner = gunzipPrefix(head);
    if (inner !== undefined && isTar(inner)) return { format: 'tar.gz', kind: 'gzip-compressed tar archive', compression: 'gzip' };
    if (inner !== undefined && executableKind(inner) !== undefined) return { format: 'gzip', kind: 'gzip-compressed executable', compression: 'gzip' };
    // A tar header can sit past what 4 KiB of compressed data expands to only in odd archives; the
    // extraction decides from the decompressed bytes, and reports a corrupt stream clearly.
    return { format: 'tar.gz', kind: 'gzip-compressed data', compression: 'gzip' };
  }
  const compression = compressionOf(head);
  if (compression !== undefined) return { format: compression, kind: `${compression}-compressed data`, compression };
  if (isZip(head)) return { format: 'zip', kind: 'zip archive' };
  if (isTar(head)) return { format: 'tar', kind: 'tar archive' };
  const exe = executableKind(head);
  if (exe !== undefined) return { format: 'executable', kind: exe };
  const other = otherKind(head);
  return { format: 'unknown', kind: other ?? `starts with bytes ${head.subarray(0, 8).toString('hex')}` };
}

function isZip(b: Buffer): boolean {
  // Local file header, or the end-of-central-directory record of an empty zip.
  return b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && ((b[2] === 0x03 && b[3] === 0x04) || (b[2] === 0x05 && b[3] === 0x06));
}

/** ustar magic, or an old (v7) header whose checksum adds up. */
export function isTar(b: Buffer): boolean {
  if (b.length < 512) return false;
  const magic = b.subarray(257, 263).toString('latin1');
  if (magic === 'ustar\u0000' || magic === 'ustar ') return true;
  const stored = Number.parseInt(
    b
      .subarray(148, 156)
      .toString('latin1')
      .replace(/[\0 ]+$/, '')
      .trim(),
    8,
  );
  if (!Number.isFinite(stored)) return false;
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 0x20 : (b[i] as number);
  return sum === stored && b[0] !== 0;
}

export function executableKind(b: Buffer): string | undefined {
  if (b.length >= 4 && b[0] === 0x7f && b[1] === 0x45 && b[2] === 0x4c && b[3] === 0x46) return 'ELF executable';
  if (b.length >= 4) {
    const magic = b.readUInt32BE(0);
    if ([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe].includes(magic)) return 'Mach-O executable';
    // 0xcafebabe is also a Java class file; a Mach-O fat header has a small architecture count after it.
    if (magic === 0xcafebabe && b.length >= 8 && b.readUInt32BE(4) < 32) return 'Mach-O universal executable';
  }
  if (b.length >= 2 && b[0] === 0x4d && b[1] === 0x5a) return 'PE (Windows) executable';
  if (b.length >= 2 && b[0] === 0x23 && b[1] === 0x21) return 'script (#!)';
  return undefined;
}

function otherKind(b: Buffer): string | undefined {
  const text = b.subarray(0, 64).toString('latin1').trimStart().toLowerCase();
  if (text.startsWith('<!doctype html') || text.startsWith('<html')) return 'an HTML page';
  if (text.startsWith('{') || text.startsWith('[')) return 'JSON text';
  return undefined;
}

/** Inflates what a prefix of a gzip stream holds, or undefined when it cannot. */
function gunzipPrefix(head: Buffer): Buffer | undefined {
  try {
    // Sync flush: the prefix is a truncated stream by design.
    return gunzipSync(head, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: 1 << 20 });
  } catch {
    // Corrupt data: undecidable here; the tar reader that runs next reports it with context.
    return undefined;
  }
}
