/**
 * One binary from URL to a checked folder: fetch (hashing as it streams), compare the checksum, and
 * only then unpack, find the binary and, if asked, run `<binary> version`. Shared by the upgrade path
 * and `chainvisor check-plan`. The result is a folder inside the work folder; installing it is the
 * caller's business.
 */
import path from 'node:path';
import type { Logger } from '../log/index.js';
import {
  type Checksum,
  type ExtractLimits,
  type Unpacked,
  assertChecksum,
  createHasher,
  formatChecksum,
  smokeTest,
  unpack,
} from '../verify/index.js';
import type { Fetcher } from './fetch.js';
import type { DownloadSource } from './source.js';

export interface StageOptions {
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
  /** Filled in step by step, so a caller can tell how far a failed attempt got (check-plan's table). */
  progress?: StageProgress;
}

export interface StageProgress {
  bytes?: number;
  checksum?: Checksum;
  /** True once the checksum matched (or none was required and none given). */
  verified?: boolean;
  unpacked?: Unpacked;
  version?: string;
}

export interface Staged {
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

export async function stageBinary(options: StageOptions): Promise<Staged> {
  const { source, platform, logger } = options;
  const what = `${platform} binary`;
  const file = path.join(options.workDir, 'download');
  const tree = path.join(options.workDir, 'tree');
  const started = Date.now();
  logger.info({ platform, url: source.shown }, 'downloading the upgrade binary');
  const fetched = await options.fetcher.fetchToFile({
    source,
    file,
    what,
    algo: createHasher(source.checksum).algo,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const progress = options.progress ?? {};
  progress.bytes = fetched.bytes;
  progress.checksum = fetched.checksum;
  const seconds = (Date.now() - started) / 1000;
  logger.info(
    { bytes: fetched.bytes, seconds, attempts: fetched.attempts, resumes: fetched.resumes, checksum: formatChecksum(fetched.checksum) },
    'download complete',
  );
  const subject = { what, url: source.shown };
  if (source.checksum !== undefined) {
    assertChecksum(subject, source.checksum, fetched.checksum, fetched.bytes);
    logger.info({ checksum: formatChecksum(source.checksum) }, 'checksum verified');
  } else {
    logger.warn({ checksum: formatChecksum(fetched.checksum) }, 'the URL has no checksum: the download is NOT verified (DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM=false)');
  }
  progress.verified = true;

  const unpacked = await unpack({ subject, file, tree, name: options.name, platform, limits: options.limits });
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
