/**
 * One attempt of a download: one request (a range request when resuming), its answer checked (a whole
 * file again, a range that fits, or a status that ends the attempt), and its body hashed and written
 * as it arrives. Why: docs/design/downloads.md#downloadfetchts.
 */
import type { Hash } from 'node:crypto';
import type fs from 'node:fs/promises';

import { isFsError } from '../shared/errors/index.js';
import { createBufferedWriter } from '../shared/fswrite/index.js';
import type { Logger } from '../shared/log.js';
import { asTransportError, dropBody, type HttpClient, parseRetryAfter } from '../shared/net/index.js';
import { formatBytes } from '../shared/units.js';
import { DownloadIoError, DownloadTooLargeError } from './errors.js';
import { RetryableFailure, StatusFailure } from './fetch-failure.js';
import { header, openUrl } from './http.js';
import type { UrlPolicy } from './policy.js';
import type { DownloadSource } from './source.js';

export interface AttemptState {
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

/** What an attempt reads and writes; `state` carries over from one attempt to the next. */
export interface Attempt {
  client: HttpClient;
  policy: UrlPolicy;
  /** The longest pause in the body. */
  timeoutMs: number;
  req: {
    source: DownloadSource;
    file: string;
    signal?: AbortSignal | undefined;
    onProgress?: ((bytes: number, total: number | undefined) => void) | undefined;
  };
  handle: fs.FileHandle;
  state: AttemptState;
  maxBytes: number;
  resuming: boolean;
  log: Logger;
  /** Empties the file and the hash: the server sends the file from the start again. */
  restart: () => Promise<void>;
}

export async function attemptOnce(attempt: Attempt): Promise<void> {
  const { client, policy, timeoutMs, req, handle, state, maxBytes, resuming, log, restart } = attempt;
  const headers: Record<string, string> = { 'user-agent': 'chainvisor', 'accept-encoding': 'identity' };
  if (resuming) {
    headers.range = `bytes=${state.received}-`;
    if (state.validator !== undefined) headers['if-range'] = state.validator;
  }
  const { response } = await openUrl(req.source.url, {
    client,
    policy,
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
      throw new RetryableFailure(`the server answered the range request with Content-Range ${JSON.stringify(header(response.headers['content-range']) ?? '')}`);
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
    for await (const chunk of readBody(body as AsyncIterable<Buffer>, timeoutMs)) {
      if (state.received + chunk.length > maxBytes) throw tooLarge(req, `more than ${maxBytes} bytes arrived`, maxBytes);
      state.hash.update(chunk);
      state.received += chunk.length;
      await io(() => out.write(chunk));
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

/** The body's chunks; undici's stall of the body leaves as a TransportTimeout. */
async function* readBody(body: AsyncIterable<Buffer>, timeoutMs: number): AsyncGenerator<Buffer> {
  try {
    yield* body;
  } catch (error) {
    throw asTransportError(error, timeoutMs);
  }
}

function tooLarge(req: Attempt['req'], detail: string, limit: number): DownloadTooLargeError {
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
