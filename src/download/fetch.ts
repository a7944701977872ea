/**
 * Downloading one URL to a file, hashing the bytes as they arrive (one pass, constant memory).
 * Why, and the rest of its rules: docs/design/downloads.md#downloadfetchts.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';

import type { Config } from '../config/index.js';
import { ChainvisorError, isFsError } from '../shared/errors/index.js';
import type { Logger } from '../shared/log.js';
import { createHttpClient, type HttpClient } from '../shared/net/index.js';
import type { Checksum, ChecksumAlgo } from '../verify/index.js';
import { type BackoffOptions, defaultBackoff, retryDelay, sleep } from './backoff.js';
import { startDeadline } from './deadline.js';
import { DownloadAbortedError, DownloadDeadlineError, DownloadIoError } from './errors.js';
import { attemptOnce, type AttemptState } from './fetch-attempt.js';
import { classify, describeFailure, finalError, StatusFailure } from './fetch-failure.js';
import { copyFileUrl } from './file-url.js';
import type { UrlPolicy } from './policy.js';
import type { DownloadSource } from './source.js';

export interface FetcherOptions {
  /** CHAINVISOR_DOWNLOAD_TIMEOUT (ms): connect, response headers, and the longest pause in the body. */
  timeoutMs: number;
  /** CHAINVISOR_DOWNLOAD_RETRIES: extra attempts after a retryable failure. */
  retries: number;
  /** CHAINVISOR_DOWNLOAD_MAX_BYTES. */
  maxBytes: number;
  /** CHAINVISOR_DOWNLOAD_DEADLINE (ms): the whole fetch of one URL, retries and backoff included; none when absent. */
  deadlineMs?: number;
  policy: UrlPolicy;
  logger: Logger;
  /** Delays between attempts; tests make them tiny. */
  backoff?: Partial<BackoffOptions>;
  random?: () => number;
  /** A CA trusted besides the host's (tests trust their private CA). */
  tls?: { ca?: string | Buffer };
  /** Where the proxy variables and SSL_CERT_FILE/SSL_CERT_DIR are read; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The HTTP client; by default chainvisor's own (src/shared/net) with the options above (the benchmark compares another). */
  client?: HttpClient;
}

export interface FetchRequest {
  source: DownloadSource;
  /** Created or truncated; holds the whole body on success. */
  file: string;
  /** For messages: `linux/amd64 binary`. */
  what: string;
  /** The hash computed as the bytes arrive; by default the source's checksum's (sha256 when it has none). */
  algo?: ChecksumAlgo;
  /** Overrides the fetcher's cap (the Info document has a small one). */
  maxBytes?: number;
  signal?: AbortSignal;
  /** Told after every chunk: bytes of the file so far (back to 0 if it starts over) and the total when known. */
  onProgress?: (bytes: number, total: number | undefined) => void;
}

export interface FetchResult {
  bytes: number;
  /** Of the whole file, in the requested algorithm. */
  checksum: Checksum;
  attempts: number;
  /** How many attempts continued where the previous one stopped. */
  resumes: number;
}

export interface Fetcher {
  fetchToFile(request: FetchRequest): Promise<FetchResult>;
  /** The URL policy every fetch applies; whoever weighs URLs before fetching applies this one. */
  readonly policy: UrlPolicy;
  close(): Promise<void>;
}

/** The fetcher the configuration asks for: its time limit, retries, size cap and URL policy. */
export function fetcherFromConfig(config: Config, logger: Logger, overrides: Partial<FetcherOptions> = {}): Fetcher {
  return createFetcher({
    timeoutMs: config.downloadTimeout,
    retries: config.downloadRetries,
    maxBytes: config.downloadMaxBytes,
    deadlineMs: config.downloadDeadline,
    policy: { allowInsecureHttp: config.allowInsecureHttp, allowFileUrls: config.allowFileUrls },
    logger,
    ...overrides,
  });
}

export function createFetcher(options: FetcherOptions): Fetcher {
  const backoff = { ...defaultBackoff, ...options.backoff };
  const client: HttpClient =
    options.client ??
    createHttpClient({
      timeoutMs: options.timeoutMs,
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.tls?.ca === undefined ? {} : { extraCa: options.tls.ca }),
    });

  async function fetchToFile(request: FetchRequest): Promise<FetchResult> {
    const req = { ...request, algo: request.algo ?? request.source.checksum?.algo ?? 'sha256' };
    const maxBytes = req.maxBytes ?? options.maxBytes;
    if (req.source.url.protocol === 'file:') {
      return copyFileUrl({
        source: req.source,
        file: req.file,
        algo: req.algo,
        maxBytes,
        policy: options.policy,
        what: req.what,
        ...(req.signal ? { signal: req.signal } : {}),
      });
    }
    const route = client.routeOf(req.source.url);
    const log = options.logger.child({ url: req.source.shown, ...(route === undefined ? {} : { proxy: route.shown }) });
    const handle = await openOrFail(req.file);
    const state: AttemptState = { received: 0, hash: createHash(req.algo), total: undefined, rangeOk: false, validator: undefined };
    let resumes = 0;
    let attempts = 0;
    // Every request and every backoff of this fetch listens to the deadline as well as to the caller.
    const deadline = startDeadline(options.deadlineMs, req.signal);
    const limited: FetchRequest = { ...req, signal: deadline.signal };
    const expired = (): DownloadDeadlineError =>
      new DownloadDeadlineError(req.what, req.source.shown, { bytes: state.received, total: state.total, attempts, deadlineMs: options.deadlineMs ?? 0 });
    const restart = async (): Promise<void> => {
      state.received = 0;
      state.hash = createHash(req.algo);
      state.total = undefined;
      try {
        await handle.truncate(0);
      } catch (error) {
        throw isFsError(error) ? new DownloadIoError('truncate', req.file, error) : error;
      }
    };
    try {
      for (let attempt = 1; ; attempt++) {
        attempts = attempt;
        try {
          if (state.received > 0 && !state.rangeOk) await restart();
          const resuming = state.received > 0;
          if (resuming) {
            resumes += 1;
            log.info({ from: state.received, total: state.total }, 'resuming the download where the connection dropped');
          }
          await attemptOnce({ client, policy: options.policy, timeoutMs: options.timeoutMs, req: limited, handle, state, maxBytes, resuming, log, restart });
          return { bytes: state.received, checksum: { algo: req.algo, hex: state.hash.digest('hex') }, attempts: attempt, resumes };
        } catch (error) {
          if (req.signal?.aborted) throw new DownloadAbortedError(req.what, req.source.shown);
          if (deadline.expired()) throw expired();
          if (error instanceof ChainvisorError) throw error;
          const kind = classify(error);
          if (kind === 'bug') throw error;
          const status = error instanceof StatusFailure ? error.status : undefined;
          const reason = describeFailure(error);
          if (kind !== 'retry') throw finalError(req, reason, attempt, status, error, false, route?.shown);
          if (attempt > options.retries) {
            throw finalError(req, reason, attempt, status, error, true, route?.shown);
          }
          const retryAfter = error instanceof StatusFailure ? error.retryAfterMs : undefined;
          const delayMs = retryDelay(attempt, backoff, retryAfter, options.random);
          log.warn({ attempt, of: options.retries + 1, delayMs, reason, received: state.received }, 'download attempt failed; retrying');
          try {
            await sleep(delayMs, deadline.signal);
          } catch {
            if (!req.signal?.aborted && deadline.expired()) throw expired();
            throw new DownloadAbortedError(req.what, req.source.shown);
          }
        }
      }
    } finally {
      deadline.clear();
      await handle.close();
    }
  }

  return {
    fetchToFile,
    policy: options.policy,
    close: () => client.close(),
  };
}

async function openOrFail(file: string): Promise<fs.FileHandle> {
  try {
    return await fs.open(file, 'w', 0o600);
  } catch (error) {
    throw isFsError(error) ? new DownloadIoError('create', file, error) : error;
  }
}
