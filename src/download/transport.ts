/**
 * The HTTP client under the download: node's own `http`/`https`, one connection per request, with
 * the time limits of CHAINVISOR_DOWNLOAD_TIMEOUT (connecting and the complete response head, counted
 * together from the start of the request whatever trickles in meanwhile; then the longest pause in
 * the body), each failing with a TransportTimeout that names the phase.
 *
 * Why not undici: undici 7 (the last line for Node 20) throws an uncatchable `assert(!this.paused)`
 * from its socket 'end' handler when the server closes the connection while the body is paused by
 * backpressure (nodejs/undici#5360), and downloads apply backpressure by design. undici 8 (Node >=
 * 22.19) fixes that and was tried (issue 18, item 5; the commit "Download transport on undici 8
 * (evaluated…)" holds it): one Agent, imported on the first request, with connect.timeout,
 * headersTimeout (it bounds the complete head: head bytes do not refresh it) and bodyTimeout (its
 * parser errors come without their HPE_* code, so HTTPParserError's name decided). It passed every
 * hostile-download test on Node 22 and 26, the trickled head included, but it costs memory:
 * `bench:download` interleaved with this transport on Node 22 gave a peak RSS of 139–142 MiB against 125–134 MiB on a 1 GiB archive (medians
 * 140 and 130) and 129–146 against 119–140 MiB at 256 MiB; the raw undici transfer 115–130 against
 * 104–125 MiB for node:http; loading undici alone adds 23 MiB of RSS to node, node:http 5. No
 * throughput difference showed through the noise of the shared machine (pipeline medians 116 and
 * 97 MiB/s, spreads 45–240 and 51–131). So the download stays on node:http; see docs/download.md,
 * "Benchmark".
 */
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';

export interface TransportOptions {
  /** Each of the three limits, in ms. */
  timeoutMs: number;
  /** Extra TLS settings (tests trust a private CA). */
  tls?: { ca?: string | Buffer };
}

export interface TransportResponse {
  statusCode: number;
  headers: http.IncomingHttpHeaders;
  body: Readable;
}

export interface Transport {
  request(url: URL, options: { headers: Record<string, string>; signal: AbortSignal | undefined }): Promise<TransportResponse>;
  close(): Promise<void>;
}

/** A time limit that ran out; `code` ETIMEDOUT so it counts as a network failure (retried). */
export class TransportTimeout extends Error {
  readonly code = 'ETIMEDOUT';

  constructor(
    readonly phase: 'connect' | 'headers' | 'body',
    readonly limitMs: number,
  ) {
    const limit = `${limitMs} ms, CHAINVISOR_DOWNLOAD_TIMEOUT`;
    super(
      phase === 'connect'
        ? `connecting timed out (${limit})`
        : phase === 'headers'
          ? `the server sent its response head too slowly (not complete within ${limit})`
          : `the body stalled (no data for ${limit})`,
    );
    this.name = 'TransportTimeout';
  }
}

export function createTransport(options: TransportOptions): Transport {
  const agents = {
    http: new http.Agent({ keepAlive: false }),
    https: new https.Agent({ keepAlive: false, ...options.tls }),
  };
  return {
    request(url, { headers, signal }) {
      return new Promise((resolve, reject) => {
        const secure = url.protocol === 'https:';
        const req = (secure ? https : http).request(url, {
          method: 'GET',
          agent: secure ? agents.https : agents.http,
          headers,
          ...(signal === undefined ? {} : { signal }),
        });
        let response: http.IncomingMessage | undefined;
        // The complete response head within the limit, from the moment the request starts: an idle
        // timer alone would let a head that trickles a byte at a time hold the download for ever.
        const headTimer = setTimeout(() => {
          req.destroy(new TransportTimeout(req.socket?.connecting === false ? 'headers' : 'connect', options.timeoutMs));
        }, options.timeoutMs);
        // Then an idle socket in the body.
        req.setTimeout(options.timeoutMs, () => {
          if (response !== undefined) response.destroy(new TransportTimeout('body', options.timeoutMs));
        });
        req.once('error', (error) => {
          clearTimeout(headTimer);
          reject(error);
        });
        req.once('close', () => clearTimeout(headTimer));
        req.once('response', (res) => {
          clearTimeout(headTimer);
          response = res;
          resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res });
        });
        req.end();
      });
    },
    async close() {
      agents.http.destroy();
      agents.https.destroy();
    },
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
