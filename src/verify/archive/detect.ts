/**
 * What a downloaded file is, from its bytes rather than its name: URLs often end in `?…` or carry no
 * extension, and a name can lie. Executables are recognised by their magic numbers so that an HTML
 * error page (or anything else) is never installed as a node binary.
 */
import { notReadError, openRegular } from '../../shared/fsread/index.js';
import { isTar } from './extract-tar.js';
import { type CompressionFormatRow, type Format, type FormatRow, formats } from './formats.js';

/**
 * What a file is: a row of the formats table, or a plain executable (no row). A compression alone is a
 * compressed executable; whether a tar is inside is known for certain only once it is decompressed
 * (see extract-compressed.ts), so `detectFromHead` names the compression (or, when its decoder can
 * peek, what the first bytes hold, for messages) and the extraction names the result.
 */
export type Detected = { format: Format; kind: string; row?: FormatRow } | { format: 'unknown'; kind: string };

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

/** Classifies the first bytes of a file (at least 512 for tar, more for gzip): the first row whose magic they have. */
export function detectFromHead(head: Buffer): Detected {
  if (head.length === 0) return { format: 'unknown', kind: 'the file is empty' };
  const row = formats.find((candidate) => candidate.magic(head));
  if (row?.kind === 'compression') return { ...compressed(row, head), row };
  if (row !== undefined) return { format: row.name, kind: `${row.name} archive`, row };
  const exe = executableKind(head);
  if (exe !== undefined) return { format: 'executable', kind: exe };
  const other = otherKind(head);
  return { format: 'unknown', kind: other ?? `starts with bytes ${head.subarray(0, 8).toString('hex')}` };
}

function compressed(row: CompressionFormatRow, head: Buffer): { format: Format; kind: string } {
  if (row.decoder.peek === undefined) return { format: row.name, kind: `${row.name}-compressed data` };
  const inner = row.decoder.peek(head);
  if (inner !== undefined && isTar(inner)) return { format: row.tar.name, kind: `${row.name}-compressed tar archive` };
  if (inner !== undefined && executableKind(inner) !== undefined) return { format: row.name, kind: `${row.name}-compressed executable` };
  // A tar header can sit past what 4 KiB of compressed data expands to only in odd archives; the
  // extraction decides from the decompressed bytes, and reports a corrupt stream clearly.
  return { format: row.tar.name, kind: `${row.name}-compressed data` };
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
