/**
 * Downloading one URL to a file, hashing the bytes as they arrive (one pass, constant memory).
 * Why, and the rest of its rules: docs/design/downloads.md#downloadfetchts.
 */
import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs/promises';

import type { Config } from '../config/index.js';
import { ChainvisorError, isFsError } from '../shared/errors/index.js';
import { createBufferedWriter } from '../shared/fswrite/index.js';
import type { Logger } from '../shared/log.js';
import { asTransportError, createHttpClient, dropBody, type HttpClient, parseRetryAfter } from '../shared/net/index.js';
import { formatBytes } from '../shared/units.js';
import type { Checksum, ChecksumAlgo } from '../verify/index.js';
import { type BackoffOptions, defaultBackoff, retryDelay, sleep } from './backoff.js';
import { startDeadline } from './deadline.js';
import { DownloadAbortedError, DownloadDeadlineError, DownloadIoError, DownloadTooLargeError } from './errors.js';
import { classify, describeFailure, finalError, RetryableFailure, StatusFailure } from './fetch-failure.js';
import { copyFileUrl } from './file-url.js';
import { header, openUrl } from './http.js';
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
  /** Created or truncated; holds the whole body on success (unless a sink said it needs no file). */
  file: string;
  /** For messages: `linux/amd64 binary`. */
  what: string;
  /** The hash computed as the bytes arrive; by default the source's checksum's (sha256 when it has none). */
  algo?: ChecksumAlgo;
  /** Overrides the fetcher's cap (the Info document has a small one). */
  maxBytes?: number;
  signal?: AbortSignal;
  /** Also receives the body as it arrives (extraction while downloading); not for file:// URLs. */
  sink?: DownloadSink;
  /** Told after every chunk: bytes of the file so far (back to 0 if it starts over) and the total when known. */
  onProgress?: (bytes: number, total: number | undefined) => void;
}

/** A consumer of the body besides the file and the hash. */
export interface DownloadSink {
  /** The next bytes, in file order, once hashed and written; the download waits for it. Never throws. */
  write(chunk: Buffer): Promise<void>;
  /** The server sends the file from the start again: the bytes given so far are void. Never throws. */
  restart(): Promise<void>;
  /**
   * False once the sink has all it needs from the bytes themselves (a tar.gz being extracted): the
   * rest of the body is then not written to the file, which halves the disk writes. Only a restart
   * may make it true again (and the file then starts over too).
   */
  readonly needsFile: boolean;
  /**
   * Set once the sink refuses the file whatever the rest of it and its checksum hold (a decompression
   * bomb): the download stops at once, the request is aborted, and the fetch fails with this error.
   */
  readonly refusal: ChainvisorError | undefined;
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
  close(): Promise<void>;
}

interface AttemptState {
  /** Bytes in the file and in the hash. */
  received: number;
  hash: Hash;
  /** The whole file's size, when the server said. */
  total: number | undefined;
  /** The server advertised `Accept-Ranges: bytes`. */
  rangeOk: boolean;
  /** Strong ETag or Last-Modified, sent as If-Range when resuming. */
  validator: string | undefined;
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
      await req.sink?.restart();
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
          await attemptOnce(limited, handle, state, maxBytes, resuming, log, restart);
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

  async function attemptOnce(
    req: FetchRequest,
    handle: fs.FileHandle,
    state: AttemptState,
    maxBytes: number,
    resuming: boolean,
    log: Logger,
    restart: () => Promise<void>,
  ): Promise<void> {
    const headers: Record<string, string> = { 'user-agent': 'chainvisor', 'accept-encoding': 'identity' };
    if (resuming) {
      headers.range = `bytes=${state.received}-`;
      if (state.validator !== undefined) headers['if-range'] = state.validator;
    }
    const { response } = await openUrl(req.source.url, {
      client,
      policy: options.policy,
      headers,
      authorization: req.source.authorization,
      signal: req.signal,
    });
    const { statusCode, body } = response;
    if (statusCode === 200) {
      if (state.received > 0) {
        log.info('the server sent the whole file again instead of the rest; starting over');
        await restart();
      }
      const length = contentLength(response.headers['content-length']);
      if (length !== undefined && length > maxBytes) {
        await dropBody(body);
        throw tooLarge(req, `the server announces ${length} bytes`, maxBytes);
      }
      state.total = length;
      state.rangeOk = /\bbytes\b/i.test(header(response.headers['accept-ranges']) ?? '');
      const etag = header(response.headers.etag);
      state.validator = etag !== undefined && !etag.startsWith('W/') ? etag : header(response.headers['last-modified']);
    } else if (statusCode === 206 && resuming) {
      const range = parseContentRange(header(response.headers['content-range']));
      if (range === undefined || range.start !== state.received || (state.total !== undefined && range.total !== undefined && range.total !== state.total)) {
        await dropBody(body);
        await restart();
        state.rangeOk = false;
        throw new RetryableFailure(
          `the server answered the range request with Content-Range ${JSON.stringify(header(response.headers['content-range']) ?? '')}`,
        );
      }
      if (range.total !== undefined) state.total = range.total;
    } else if (statusCode === 416 && resuming) {
      await dropBody(body);
      await restart();
      state.rangeOk = false;
      throw new RetryableFailure('the server refused the range request (416)');
    } else {
      // Read a little of the error page so the connection can be reused; a failure here changes nothing.
      await dropBody(body);
      throw new StatusFailure(statusCode, parseRetryAfter(response.headers['retry-after']));
    }

    // Stream the body: hash every byte as it arrives, write in 1 MiB writes through one buffer.
    const out = createBufferedWriter(handle, state.received);
    const io = async (write: () => Promise<void>): Promise<void> => {
      try {
        await write();
      } catch (error) {
        throw isFsError(error) ? new DownloadIoError('write the download to', req.file, error) : error;
      }
    };
    try {
      for await (const chunk of readBody(body as AsyncIterable<Buffer>, options.timeoutMs)) {
        if (state.received + chunk.length > maxBytes) throw tooLarge(req, `more than ${maxBytes} bytes arrived`, maxBytes);
        state.hash.update(chunk);
        state.received += chunk.length;
        if (req.sink === undefined) {
          await io(() => out.write(chunk));
        } else {
          const needed = req.sink.needsFile;
          if (needed) await io(() => out.write(chunk));
          await req.sink.write(chunk);
          // Refused whatever comes next: nothing more is fetched (the finally below aborts the request).
          if (req.sink.refusal !== undefined) throw req.sink.refusal;
          // The sink needs no more of the file: what is buffered goes to disk now, not after the last
          // byte, when an extraction that filled the disk would make it fail as the download's fault.
          if (needed && !req.sink.needsFile) await io(() => out.flush());
        }
        req.onProgress?.(state.received, state.total);
      }
    } finally {
      // Bytes already hashed must reach the file, or a resume would hash a hole.
      await io(() => out.flush());
      if (!body.destroyed) body.destroy();
    }
    if (state.total !== undefined && state.received !== state.total) {
      throw new RetryableFailure(`the connection closed after ${state.received} of ${state.total} bytes`);
    }
  }

  return {
    fetchToFile,
    close: () => client.close(),
  };
}

/** The body's chunks; undici's stall of the body leaves as a TransportTimeout. */
async function* readBody(body: AsyncIterable<Buffer>, timeoutMs: number): AsyncGenerator<Buffer> {
  try {
    yield* body;
  } catch (error) {
    throw asTransportError(error, timeoutMs);
  }
}

async function openOrFail(file: string): Promise<fs.FileHandle> {
  try {
    return await fs.open(file, 'w', 0o600);
  } catch (error) {
    throw isFsError(error) ? new DownloadIoError('create', file, error) : error;
  }
}

function tooLarge(req: FetchRequest, detail: string, limit: number): DownloadTooLargeError {
  return new DownloadTooLargeError(req.source.shown, `${detail}, over the limit of ${limit} bytes (${formatBytes(limit)})`, limit);
}

function contentLength(value: string | string[] | undefined): number | undefined {
  const text = header(value);
  if (text === undefined || !/^\d+$/.test(text.trim())) return undefined;
  return Number(text.trim());
}

function parseContentRange(value: string | undefined): { start: number; end: number; total: number | undefined } | undefined {
  const m = /^bytes\s+(\d+)-(\d+)\/(\d+|\*)$/i.exec(value?.trim() ?? '');
  if (m === null) return undefined;
  return { start: Number(m[1]), end: Number(m[2]), total: m[3] === '*' ? undefined : Number(m[3]) };
}
