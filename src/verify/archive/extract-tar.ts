/**
 * tar extraction: node-tar parses (headers, pax), and chainvisor writes. Each entry is checked at its
 * header — path, type, declared size, entry count — and the whole archive is refused rather than
 * "sanitised". The bytes are pushed in (`createTarExtractor`), so the same code reads a file or a
 * decompressed stream.
 * Why, and the rest of its rules: docs/design/downloads.md#verifyarchiveextract-tarts.
 */
import { Parser, type ReadEntry } from 'tar';

import { isFsError } from '../../shared/errors/index.js';
import { ArchiveInvalidError, ArchiveLimitError, ArchiveUnsafeError, type Subject } from '../errors.js';
import type { ExtractLimits } from '../limits.js';
import { checkEntryPath } from './entry-path.js';
import { feedFile } from './feed-file.js';
import { createTreeWriter, type ExtractResult, type TreeWriter } from './tree-writer.js';

export type { ExtractResult } from './tree-writer.js';

/** A tar's first header: the ustar magic at byte 257, or an old (v7) header whose checksum adds up. */
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

export async function extractTar(subject: Subject, archive: string, into: string, limits: ExtractLimits): Promise<ExtractResult> {
  const extractor = createTarExtractor(subject, into, limits);
  await feedFile(archive, extractor);
  return extractor.end();
}

/** A tar stream pushed in piece by piece (a file being read, a download arriving, a decompressed stream). */
export interface TarExtractor {
  /** Feeds the next bytes; resolves when the reader can take more. Ignored once the archive failed. */
  write(chunk: Buffer): Promise<void>;
  /** True once the archive was refused or could not be read (the reason comes from `end()`). */
  readonly failed: boolean;
  /** No more bytes: waits for the last entry, checks the links; throws the first failure. */
  end(): Promise<ExtractResult>;
  /** Stops now (with `reason` as the failure, if given) and waits until nothing writes any more. */
  abort(reason?: unknown): Promise<void>;
}

export function createTarExtractor(subject: Subject, into: string, limits: ExtractLimits): TarExtractor {
  const stop = new AbortController();
  const tree = createTreeWriter(subject, into, limits, stop.signal);
  // Its own gzip, zstd and brotli detection stays off (gzip has no switch: a tar never begins 1f 8b).
  const parser = new Parser({ strict: true, brotli: false, zstd: false });
  let failure: unknown;
  let chain: Promise<void> = Promise.resolve();
  let onFailure: () => void = () => undefined;
  const failed = new Promise<void>((resolve) => {
    onFailure = resolve;
  });
  const fail = (error: unknown): void => {
    failure ??= error;
    stop.abort(error);
    onFailure();
  };
  const ended = new Promise<void>((resolve) => {
    parser.on('end', resolve);
    parser.on('error', (error: unknown) => {
      fail(error);
      resolve();
    });
  });

  parser.on('entry', (entry: ReadEntry) => {
    if (failure !== undefined) {
      entry.resume();
      return;
    }
    // The header is checked now, synchronously, before any of its data is read.
    try {
      checkHeader(subject, entry, tree);
    } catch (error) {
      fail(error);
      entry.resume();
      return;
    }
    chain = chain.then(async () => {
      if (failure !== undefined) {
        entry.resume();
        return;
      }
      try {
        await writeEntry(subject, entry, tree);
      } catch (error) {
        fail(error);
        entry.resume();
      }
    });
  });

  /** Resolves on `event` or on a failure, whichever comes first. */
  const until = async (emitter: NodeJS.EventEmitter, event: string): Promise<void> => {
    let listener: () => void = () => undefined;
    const happened = new Promise<void>((resolve) => {
      listener = resolve;
      emitter.once(event, resolve);
    });
    await Promise.race([happened, failed]);
    emitter.off(event, listener);
  };

  return {
    get failed() {
      return failure !== undefined;
    },
    async write(chunk) {
      if (failure !== undefined) return;
      // The entry being written is behind: wait for it (or for a failure, which drains nothing).
      if (!parser.write(chunk)) await until(parser, 'drain');
    },
    async end() {
      if (failure === undefined) {
        parser.end();
        await Promise.race([ended, failed]);
      }
      // Let the entry being written finish (or fail) so nothing writes after we return.
      await chain;
      if (failure !== undefined) throw tarError(subject, failure);
      return tree.finish();
    },
    async abort(reason) {
      fail(reason ?? new Error('extraction stopped'));
      await chain;
    },
  };
}

function checkHeader(subject: Subject, entry: ReadEntry, tree: TreeWriter): void {
  tree.count();
  checkEntryPath(subject, entry.path);
  switch (entry.type) {
    case 'File':
    case 'OldFile':
    case 'ContiguousFile':
      tree.declare(entry.size);
      return;
    case 'Directory':
    case 'SymbolicLink':
    case 'Link':
      return;
    default:
      throw new ArchiveUnsafeError(subject, entry.path, 'special-file', `is a ${describeType(entry.type)}, which a binary release never needs`);
  }
}

async function writeEntry(subject: Subject, entry: ReadEntry, tree: TreeWriter): Promise<void> {
  const name = checkEntryPath(subject, entry.path);
  switch (entry.type) {
    case 'Directory':
      await tree.dir(name);
      entry.resume();
      return;
    case 'SymbolicLink':
      await tree.symlink(name, String(entry.linkpath ?? ''));
      entry.resume();
      return;
    case 'Link':
      await tree.hardlink(name, String(entry.linkpath ?? ''));
      entry.resume();
      return;
    default:
      if (name === '') throw new ArchiveUnsafeError(subject, entry.path, 'bad-name', 'is a file named like the archive root');
      await tree.file(name, entry.mode ?? 0o644, entry, entry.size);
  }
}

function describeType(type: string): string {
  switch (type) {
    case 'CharacterDevice':
      return 'character device';
    case 'BlockDevice':
      return 'block device';
    case 'FIFO':
      return 'named pipe (fifo)';
    default:
      return `${type} entry`;
  }
}

/** node-tar's own errors (truncated data, bad headers) in our terms. */
function tarError(subject: Subject, error: unknown): Error {
  if (error instanceof ArchiveUnsafeError || error instanceof ArchiveLimitError || error instanceof ArchiveInvalidError) return error;
  if (!(error instanceof Error)) return new ArchiveInvalidError(subject, String(error), error);
  // A local problem (disk full, permissions) is not the archive's fault: let the caller report it.
  if (isFsError(error)) return error;
  return new ArchiveInvalidError(subject, error.message, error);
}
