/**
 * From a verified download to a folder ready to install: detect the format from the bytes, extract
 * safely (or place the plain executable), find the binary and make it executable. Called only after
 * the checksum matched — nothing here runs on bytes that are not the ones the plan names. Which
 * extractor runs is the detected row's of the formats table (archive/formats.ts).
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import { makeFolders } from '../shared/fswrite/index.js';
import {
  type CompressedOutcome,
  createCompressedExtractor,
  detectFormat,
  type ExtractResult,
  feedFile,
  type Format,
  unknownFormatHint,
} from './archive/index.js';
import { type Subject, UnknownFormatError } from './errors.js';
import { findBinary } from './find-binary.js';
import type { ExtractLimits } from './limits.js';

export interface UnpackOptions {
  subject: Subject;
  /** The downloaded file; moved into the tree when it is a plain executable. */
  file: string;
  /** An empty or missing folder to fill; becomes `upgrades/<dir>`. */
  tree: string;
  /** DAEMON_NAME. */
  name: string;
  /** Go platform key of the binary (`linux/amd64`, `any`), for Windows' `.exe` names. */
  platform?: string;
  limits: ExtractLimits;
  /** Uncompressed bytes written so far, for the archives whose extractor reports them (zip). */
  onProgress?: (bytes: number, total: number | undefined) => void;
}

export interface Unpacked {
  format: Format;
  /** Human description: `gzip-compressed tar archive`, `ELF executable`. */
  kind: string;
  /** Entries in the archive (1 for a plain executable). */
  entries: number;
  /** Uncompressed bytes written. */
  bytes: number;
  /** `<tree>/bin/<name>`. */
  binary: string;
  /** Where the binary was: `bin/simd`, `simd`, or `(plain executable)`. */
  from: string;
}

export async function unpack(options: UnpackOptions): Promise<Unpacked> {
  const { subject, file, tree, name, limits } = options;
  const detected = await detectFormat(file);
  if (detected.format === 'unknown') throw new UnknownFormatError(subject, detected.kind, unknownFormatHint);
  await makeFolders(tree);

  const { row } = detected;
  // No row of the formats table: a plain executable.
  if (row === undefined) {
    const binDir = path.join(tree, 'bin');
    const binary = path.join(binDir, name);
    await fs.mkdir(binDir);
    await fs.rename(file, binary);
    await fs.chmod(binary, 0o755);
    const bytes = (await fs.stat(binary)).size;
    return { format: detected.format, kind: detected.kind, entries: 1, bytes, binary, from: '(plain executable)' };
  }

  if (row.kind === 'compression') {
    const extractor = createCompressedExtractor(subject, row.name, tree, limits);
    await feedFile(file, extractor);
    return finishCompressed({ subject, tree, name, platform: options.platform, outcome: await extractor.end() });
  }

  const result = await row.extract(subject, file, tree, limits, options.onProgress);
  return finishTree({ subject, tree, name, platform: options.platform, detected, result });
}

/** The last step for an extracted archive. */
async function finishTree(options: {
  subject: Subject;
  tree: string;
  name: string;
  platform: string | undefined;
  detected: { format: Format; kind: string };
  result: ExtractResult;
}): Promise<Unpacked> {
  const { detected, result } = options;
  const found = await findBinary(options.subject, options.tree, options.name, options.platform);
  return { format: detected.format, kind: detected.kind, entries: result.entries, bytes: result.bytes, binary: found.binary, from: found.from };
}

/** The last step for a compressed stream: a tar is finished as any tree; an executable goes to bin/. */
async function finishCompressed(options: {
  subject: Subject;
  tree: string;
  name: string;
  platform: string | undefined;
  outcome: CompressedOutcome;
}): Promise<Unpacked> {
  const { tree, outcome } = options;
  if (outcome.payload === undefined) return finishTree({ ...options, detected: outcome.detected, result: outcome.result });
  const binary = path.join(tree, 'bin', options.name);
  await fs.mkdir(path.dirname(binary));
  await fs.rename(path.join(tree, path.basename(outcome.payload)), binary);
  await fs.chmod(binary, 0o755);
  return { format: outcome.detected.format, kind: outcome.detected.kind, entries: 1, bytes: outcome.result.bytes, binary, from: '(plain executable)' };
}
