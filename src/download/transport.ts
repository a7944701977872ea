/**
 * The HTTP client under the download: undici's `request()` through one Agent per fetcher, with the
 * time limits of CHAINVISOR_DOWNLOAD_TIMEOUT given as undici's own options — `connect.timeout`
 * (connecting, TLS included), `headersTimeout` (the complete response head: undici arms it once the
 * request is sent and does not refresh it as head bytes trickle in, so a head sent a byte at a time
 * is cut) and `bodyTimeout` (the longest pause in the body; not counted while the download itself
 * holds the body back). Redirects are not followed here (undici 8 follows none unless asked): the
 * URL policy judges every hop (./http.ts). undici's errors leave as TransportTimeout (the phase
 * named) or keep their code; `networkError()` tells which are the network's doing.
 *
 * undici is imported on the first request, not with this module: chainvisor's start-up and the idle
 * memory of `chainvisor run` do not pay for a client most runs never use.
 *
 * undici 8 (Node >= 22.19) and not 7: undici 7 throws an uncatchable `assert(!this.paused)` from its
 * socket 'end' handler when the server closes the connection while the body is paused by
 * backpressure (nodejs/undici#5360, fixed in undici 8). Downloads apply backpressure by design (the
 * disk and the extractor set the pace); the fault-server tests cover that case.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Agent } from 'undici';

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

const timeoutPhases: Record<string, TransportTimeout['phase']> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect',
  UND_ERR_HEADERS_TIMEOUT: 'headers',
  UND_ERR_BODY_TIMEOUT: 'body',
};

/**
 * undici's failures that are the network's doing (retried like a reset): the other side closed the
 * socket, a body shorter than its Content-Length, a response that is not HTTP (HPE_* from llhttp).
 */
const networkCodes = new Set(['UND_ERR_SOCKET', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'UND_ERR_CLOSED', 'UND_ERR_DESTROYED', 'UND_ERR_INFO']);

/** True for an error of the connection or of the server's answer (worth another attempt). */
export function networkError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (typeof code === 'string' && networkCodes.has(code)) || notHttp(error);
}

/**
 * An answer llhttp cannot parse. undici 8 names it HTTPParserError; its `code` (HPE_*) is often
 * missing (it looks the number up in a table keyed by name), so the name decides.
 */
export function notHttp(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: unknown }).code;
  return error.name === 'HTTPParserError' || (typeof code === 'string' && code.startsWith('HPE_'));
}

/** An undici timeout as a TransportTimeout naming the phase; any other error as it is. */
export function asTransportError(error: unknown, timeoutMs: number): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const phase = typeof code === 'string' ? timeoutPhases[code] : undefined;
  return phase === undefined ? error : new TransportTimeout(phase, timeoutMs);
}

export function createTransport(options: TransportOptions): Transport {
  let agent: Promise<{ agent: Agent; request: typeof import('undici').request }> | undefined;
  const open = () =>
    (agent ??= import('undici').then(({ Agent, request }) => ({
      agent: new Agent({
        connect: { timeout: options.timeoutMs, ...options.tls },
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      }),
      request,
    })));
  return {
    async request(url, { headers, signal }) {
      const client = await open();
      try {
        const response = await client.request(url, {
          method: 'GET',
          dispatcher: client.agent,
          headers,
          ...(signal === undefined ? {} : { signal }),
        });
        const body = response.body as Readable;
        return { statusCode: response.statusCode, headers: response.headers as IncomingHttpHeaders, body };
      } catch (error) {
        throw asTransportError(error, options.timeoutMs);
      }
    },
    async close() {
      if (agent !== undefined) await (await agent).agent.destroy();
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
