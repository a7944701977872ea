/**
 * One binary from URL to a checked folder: fetch (hashing as it streams, and extracting a tar or a
 * compressed stream into a quarantine folder as it arrives), compare the checksum, and only then
 * release the extracted tree (or unpack the file, for zip and plain executables), find the binary and,
 * if asked, run `<binary> version`. A bomb found while it arrives stops the download before the
 * checksum can be compared: it is refused whatever its checksum (see verify/stream-unpack.ts). Shared by the upgrade path and `chainvisor check-plan`. The result is a
 * folder inside the work folder; installing it is the caller's business.
 */
import path from 'node:path';

import { isFsError } from '../shared/errors/index.js';
import type { Logger } from '../shared/log.js';
import { formatBytes } from '../shared/units.js';
import {
  assertChecksum,
  type Checksum,
  createStreamUnpacker,
  type ExtractLimits,
  formatChecksum,
  smokeTest,
  type StreamUnpacker,
  type Subject,
  unpack,
  type Unpacked,
} from '../verify/index.js';
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
  /** Uncompressed bytes written by an unpack that follows the download (zip); tar is unpacked as it arrives. */
  onExtractProgress?: (bytes: number, total: number | undefined) => void;
  /** Filled in step by step, so a caller can tell how far a failed attempt got (check-plan's table). */
  progress?: FetchProgress;
}

export interface FetchProgress {
  bytes?: number;
  /** Bytes received when an archive refused whatever its checksum (a bomb) stopped the download. */
  stopped?: number;
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
  const { source, platform } = options;
  const what = `${platform} binary`;
  const file = path.join(options.workDir, 'download');
  const tree = path.join(options.workDir, 'tree');
  const subject = { what, url: source.shown };
  // A tar or a compressed stream is extracted as it arrives, into a folder that stays quarantined (nothing
  // executable, nothing installed or run) until the whole file's checksum matched.
  const streamed = createStreamUnpacker({ subject, quarantine: path.join(options.workDir, 'quarantine'), limits: options.limits });
  try {
    return await unpackFetched(options, { what, file, tree, subject, streamed });
  } finally {
    // Removes the quarantine folder on every failure (a mismatch included); after success it is
    // already gone (it became the tree). A failure to remove it must not hide why the attempt failed:
    // it is inside the work folder, which the caller removes.
    await streamed.discard().catch((error: unknown) => options.logger.warn({ err: error }, 'could not remove the quarantine folder'));
  }
}

async function unpackFetched(
  options: FetchUnpackOptions,
  { what, file, tree, subject, streamed }: { what: string; file: string; tree: string; subject: Subject; streamed: StreamUnpacker },
): Promise<FetchedBinary> {
  const { source, platform, logger } = options;
  const started = Date.now();
  logger.info({ platform, url: source.shown }, 'downloading the upgrade binary');
  const progress = options.progress ?? {};
  const fetched = await options.fetcher
    .fetchToFile({
      source,
      file,
      what,
      sink: streamed,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    })
    .catch((error: unknown) => {
      const refusal = streamed.refusal;
      if (refusal === undefined || error !== refusal) throw error;
      // A bomb stopped the download: say that the checksum never had its say, and why that is right.
      progress.stopped = streamed.received;
      const checksum = source.checksum === undefined ? 'it had no checksum' : 'its checksum was not checked';
      throw refusal.withNote(
        `the download was stopped there, after ${formatBytes(streamed.received)}, and ${checksum}: this refusal stands whatever the checksum`,
      );
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

  // Verified: only now may the extracted tree leave quarantine (or, for the formats not streamed, the
  // file be unpacked).
  let unpacked: Unpacked;
  try {
    unpacked =
      (await streamed.finish({ tree, name: options.name, platform })) ??
      (await unpack({
        subject,
        file,
        tree,
        name: options.name,
        platform,
        limits: options.limits,
        ...(options.onExtractProgress ? { onProgress: options.onExtractProgress } : {}),
      }));
  } catch (error) {
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
