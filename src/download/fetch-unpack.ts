/**
 * One binary from URL to a checked folder, in go-getter's order: fetch the archive to a file (hashing
 * as it arrives), compare the checksum, and only then unpack it (through the inflate guard), find the
 * binary and, if asked, run `<binary> version`. So bytes not yet verified never take more disk than
 * the archive itself. Why: docs/design/downloads.md#downloadfetch-unpackts. Shared by the upgrade
 * path and `chainvisor check-plan`; the result is a folder inside the work folder, which the caller
 * installs.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import { isFsError } from '../shared/errors/index.js';
import type { Logger } from '../shared/log.js';
import { assertChecksum, type Checksum, type ExtractLimits, formatChecksum, smokeTest, unpack, type Unpacked } from '../verify/index.js';
import { ExtractIoError } from './errors.js';
import type { Fetcher } from './fetch.js';
import type { DownloadSource } from './source.js';

export interface FetchUnpackOptions {
  source: DownloadSource;
  /** The Info key used: `linux/amd64` or `any`. */
  platform: string;
  /** DAEMON_NAME. */
  name: string;
  /** An empty work folder; the download and the tree go inside it. */
  workDir: string;
  fetcher: Fetcher;
  limits: ExtractLimits;
  logger: Logger;
  /** Run `<binary> version` (only meaningful for this host's binary). */
  smokeTest: false | { timeoutMs?: number };
  signal?: AbortSignal;
  /** Bytes received so far, after every chunk (see FetchRequest.onProgress). */
  onProgress?: (bytes: number, total: number | undefined) => void;
  /** Uncompressed bytes written by the unpack, for the archives whose extractor counts them (zip). */
  onExtractProgress?: (bytes: number, total: number | undefined) => void;
  /** Filled in step by step, so a caller can tell how far a failed attempt got (check-plan's table). */
  progress?: FetchProgress;
}

export interface FetchProgress {
  bytes?: number;
  checksum?: Checksum;
  /** True once the checksum matched (or none was required and none given). */
  verified?: boolean;
  unpacked?: Unpacked;
  version?: string;
}

export interface FetchedBinary {
  /** `<workDir>/tree`, ready to become `upgrades/<dir>`. */
  tree: string;
  /** Downloaded bytes. */
  bytes: number;
  /** Of what arrived. */
  checksum: Checksum;
  /** From the URL; undefined only when checksums are not required and none was given. */
  expected: Checksum | undefined;
  attempts: number;
  resumes: number;
  unpacked: Unpacked;
  /** First line of `<binary> version`, when the smoke test ran. */
  version: string | undefined;
}

export async function fetchAndUnpack(options: FetchUnpackOptions): Promise<FetchedBinary> {
  const { source, platform, logger } = options;
  const what = `${platform} binary`;
  const file = path.join(options.workDir, 'download');
  const tree = path.join(options.workDir, 'tree');
  const subject = { what, url: source.shown };
  const started = Date.now();
  logger.info({ platform, url: source.shown }, 'downloading the upgrade binary');
  const progress = options.progress ?? {};
  const fetched = await options.fetcher.fetchToFile({
    source,
    file,
    what,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  progress.bytes = fetched.bytes;
  progress.checksum = fetched.checksum;
  const seconds = (Date.now() - started) / 1000;
  logger.info(
    { bytes: fetched.bytes, seconds, attempts: fetched.attempts, resumes: fetched.resumes, checksum: formatChecksum(fetched.checksum) },
    'download complete',
  );
  if (source.checksum !== undefined) {
    assertChecksum(subject, source.checksum, fetched.checksum, fetched.bytes);
    logger.info({ checksum: formatChecksum(source.checksum) }, 'checksum verified');
  } else {
    logger.warn(
      { checksum: formatChecksum(fetched.checksum) },
      'the URL has no checksum: the download is NOT verified (DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM=false)',
    );
  }
  progress.verified = true;

  // Verified (or, without a checksum, accepted as the operator allowed): only now is anything unpacked.
  let unpacked: Unpacked;
  try {
    unpacked = await unpack({
      subject,
      file,
      tree,
      name: options.name,
      platform,
      limits: options.limits,
      ...(options.onExtractProgress ? { onProgress: options.onExtractProgress } : {}),
    });
  } catch (error) {
    // A refused or half-written tree goes now, not with the work folder: another mirror may come next.
    await fs.rm(tree, { recursive: true, force: true }).catch((reason: unknown) => logger.warn({ err: reason }, 'could not remove a half-unpacked tree'));
    // The download arrived whole: a full disk now is the extraction's, and is said as such.
    if (isFsError(error)) throw new ExtractIoError(what, source.shown, error.path ?? options.workDir, error);
    throw error;
  }
  progress.unpacked = unpacked;
  logger.info({ format: unpacked.kind, entries: unpacked.entries, bytes: unpacked.bytes, binary: unpacked.from }, 'unpacked');

  let version: string | undefined;
  if (options.smokeTest !== false) {
    version = await smokeTest({
      binary: unpacked.binary,
      ...(options.smokeTest.timeoutMs === undefined ? {} : { timeoutMs: options.smokeTest.timeoutMs }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    progress.version = version;
    logger.info({ version }, 'smoke test passed');
  }
  return {
    tree,
    bytes: fetched.bytes,
    checksum: fetched.checksum,
    expected: source.checksum,
    attempts: fetched.attempts,
    resumes: fetched.resumes,
    unpacked,
    version,
  };
}
