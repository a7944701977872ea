/**
 * zip extraction with unzipper's central-directory reader. The whole directory is checked before
 * anything is written — names, types, entry count, declared sizes, and what they add up to against
 * the inflate guard — then each file is inflated with its real size counted, by its header and by the
 * guard, so a zip whose headers understate what it inflates to (the classic zip bomb) is stopped
 * mid-stream. The guard measures every entry's output against the whole file's size: entries that
 * share their compressed data (the overlapping zip bomb) add up against the same bytes.
 */
import fs from 'node:fs/promises';

import type { File as ZipFile } from 'unzipper';

import { isFsError } from '../../shared/errors/index.js';
import { ArchiveInvalidError, ArchiveLimitError, ArchiveUnsafeError, type Subject } from '../errors.js';
import type { ExtractLimits } from '../limits.js';
import { checkEntryPath } from './entry-path.js';
import { createInflateGuard } from './inflate-guard.js';
import { createTreeWriter, type ExtractResult, type TreeWriter } from './tree-writer.js';

type Kind = 'dir' | 'file' | 'link';

interface Planned {
  entry: ZipFile;
  name: string;
  kind: Kind;
  mode: number;
}

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;
/** `versionMadeBy` high byte of zips written on Unix: only those carry Unix modes. */
const madeOnUnix = 3;
const maxLinkTarget = 4096;

/** A local file header, or the end-of-central-directory record of an empty zip. */
export function isZip(b: Buffer): boolean {
  return b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && ((b[2] === 0x03 && b[3] === 0x04) || (b[2] === 0x05 && b[3] === 0x06));
}

/** `onProgress` gets the uncompressed bytes written so far and the total the directory declares. */
export async function extractZip(
  subject: Subject,
  archive: string,
  into: string,
  limits: ExtractLimits,
  onProgress?: (bytes: number, total: number | undefined) => void,
): Promise<ExtractResult> {
  let files: ZipFile[];
  try {
    // Loaded when needed: most releases are tar.gz, and memory stays lower without it.
    const { default: unzipper } = await import('unzipper');
    files = (await unzipper.Open.file(archive)).files;
  } catch (error) {
    if (isFsError(error)) throw error;
    throw new ArchiveInvalidError(subject, (error as Error).message, error);
  }
  const tree = createTreeWriter(subject, into, limits);
  const guard = createInflateGuard(subject, limits);
  const size = (await fs.stat(archive)).size;
  guard.readFrom(() => size);
  const planned = files.map((entry) => planEntry(subject, entry, tree));
  const total = planned.reduce((sum, item) => sum + (item.kind === 'file' ? item.entry.uncompressedSize : 0), 0);
  // What the directory declares is refused before anything is written, as what comes out would be.
  guard.check(total);
  let written = 0;
  const counted = (chunk: Buffer): void => {
    guard.output(chunk.length);
    written += chunk.length;
    onProgress?.(written, total);
  };
  for (const item of planned) {
    try {
      await writeEntry(subject, item, tree, counted);
    } catch (error) {
      if (error instanceof ArchiveUnsafeError || error instanceof ArchiveLimitError || error instanceof ArchiveInvalidError) throw error;
      if (isFsError(error)) throw error;
      throw new ArchiveInvalidError(subject, `entry ${JSON.stringify(item.entry.path)}: ${(error as Error).message}`, error);
    }
  }
  return tree.finish();
}

function planEntry(subject: Subject, entry: ZipFile, tree: TreeWriter): Planned {
  tree.count();
  const name = checkEntryPath(subject, entry.path);
  if ((entry.flags & 0x1) !== 0) throw new ArchiveUnsafeError(subject, entry.path, 'special-file', 'is encrypted');
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
    throw new ArchiveInvalidError(
      subject,
      `entry ${JSON.stringify(entry.path)} uses compression method ${entry.compressionMethod}; only stored and deflate are supported`,
    );
  }
  const unixMode = entry.versionMadeBy >> 8 === madeOnUnix ? entry.externalFileAttributes >>> 16 : 0;
  const type = unixMode & S_IFMT;
  let kind: Kind;
  if (type === S_IFLNK) kind = 'link';
  else if (type === S_IFDIR || /[/\\]$/.test(entry.path)) kind = 'dir';
  else if (type === S_IFREG || type === 0) kind = 'file';
  else throw new ArchiveUnsafeError(subject, entry.path, 'special-file', `is a special file (type ${type.toString(8)}), which a binary release never needs`);
  if (kind === 'file') {
    if (name === '') throw new ArchiveUnsafeError(subject, entry.path, 'bad-name', 'is a file named like the archive root');
    tree.declare(entry.uncompressedSize);
  }
  if (kind === 'link' && entry.uncompressedSize > maxLinkTarget) {
    throw new ArchiveUnsafeError(subject, entry.path, 'link-escape', 'is a symbolic link with an oversized target');
  }
  return { entry, name, kind, mode: unixMode === 0 ? 0o644 : unixMode };
}

async function writeEntry(subject: Subject, item: Planned, tree: TreeWriter, counted: (chunk: Buffer) => void): Promise<void> {
  switch (item.kind) {
    case 'dir':
      return tree.dir(item.name);
    case 'link': {
      const target = await item.entry.buffer();
      if (target.length > maxLinkTarget) throw new ArchiveUnsafeError(subject, item.entry.path, 'link-escape', 'is a symbolic link with an oversized target');
      return tree.symlink(item.name, target.toString('utf8'));
    }
    case 'file':
      await tree.file(item.name, item.mode, countChunks(item.entry.stream(), counted), item.entry.uncompressedSize);
      return;
  }
}

/** Each inflated piece through the guard (and the progress) before it is written. */
async function* countChunks(stream: AsyncIterable<Buffer> & { destroy?: () => void }, counted: (chunk: Buffer) => void): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of stream) {
      counted(chunk);
      yield chunk;
    }
  } finally {
    stream.destroy?.();
  }
}
