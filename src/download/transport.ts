/**
 * The HTTP client under the download: undici, one connection per request, with the three time
 * limits of CHAINVISOR_DOWNLOAD_TIMEOUT (connecting, the response headers, the longest pause in the
 * body). undici reports them as UND_ERR_CONNECT_TIMEOUT, UND_ERR_HEADERS_TIMEOUT and
 * UND_ERR_BODY_TIMEOUT; the fetcher names and retries them.
 *
 * Memory: undici allocates a buffer per socket read, and V8 frees them in bulk, so a download's peak
 * RSS sits around 130–140 MiB whatever the file's size (`node:http` measured ~100 MiB in the same
 * pipeline; see docs/download.md, "Benchmark").
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Agent, request } from 'undici';

export interface TransportOptions {
  /** Each of the three limits, in ms. */
  timeoutMs: number;
  /** Extra TLS settings (tests trust a private CA). */
  tls?: { ca?: string | Buffer };
}

export interface TransportResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Readable;
}

export interface Transport {
  request(url: URL, options: { headers: Record<string, string>; signal: AbortSignal | undefined }): Promise<TransportResponse>;
  close(): Promise<void>;
}

/** The undici error codes of the three time limits, with what each means. */
export const timeoutCodes: Readonly<Record<string, string>> = {
  UND_ERR_CONNECT_TIMEOUT: 'connecting timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no response headers in time',
  UND_ERR_BODY_TIMEOUT: 'the body stalled (no data in time)',
};

export function createTransport(options: TransportOptions): Transport {
  const dispatcher = new Agent({
    connect: { timeout: options.timeoutMs, ...options.tls },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    pipelining: 0,
  });
  return {
    async request(url, { headers, signal }) {
      const response = await request(url, { method: 'GET', dispatcher, headers, ...(signal === undefined ? {} : { signal }) });
      return { statusCode: response.statusCode, headers: response.headers as IncomingHttpHeaders, body: response.body };
    },
    close: () => dispatcher.close(),
  };
}

/**
 * Reads and drops a body we do not want (an error page, a redirect, a file refused by its size): at
 * most `limit` bytes (128 KiB unless said), then the connection is closed.
 */
export async function discardBody(body: Readable, limit = 128 * 1024): Promise<void> {
  let seen = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    seen += chunk.length;
    if (seen > limit) break;
  }
  if (!body.destroyed) body.destroy();
}
