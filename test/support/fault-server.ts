/**
 * A real HTTP(S) server on 127.0.0.1, port 0, serving files with switchable faults: a status code, a
 * connection dropped mid-body, a body that stalls, trickles or never ends, redirects, a lying
 * Content-Length, a server that ignores Range, an answer that is not HTTP, a response head sent a byte
 * at a time or far too large, an error page that echoes the request's path. Every request is recorded
 * so tests can assert on what the client sent (Range, If-Range, Authorization, the query string), and
 * of a trickled body how much was sent before the client hung up; answers the client cut short are
 * counted. `close()` ends every connection, stalled ones included.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

import { testCert, testKey } from './tls.js';

export type Fault =
  /** Answer with this status (and headers, e.g. Retry-After). */
  | { kind: 'status'; status: number; headers?: Record<string, string> }
  /** Send the headers and the first `afterBytes` bytes, then cut the connection. */
  | { kind: 'drop'; afterBytes: number }
  /** Send the headers and the first `afterBytes` bytes, then nothing, ever. */
  | { kind: 'stall'; afterBytes: number }
  /** Accept the request and never answer. */
  | { kind: 'no-answer' }
  /** Redirect (302 unless said) to a path on this server or an absolute URL. */
  | { kind: 'redirect'; to: string; status?: number }
  /** Declare this Content-Length, send min(declared, real) bytes, then close the connection. */
  | { kind: 'wrong-length'; contentLength: number }
  /** Answer 200 with the whole body even to a Range request. */
  | { kind: 'ignore-range' }
  /** Answer 200 without Content-Length (chunked), so the size is known only at the end. */
  | { kind: 'no-length' }
  /** Send the whole body slowly: `bytes` at a time, one piece every `everyMs`. */
  | { kind: 'trickle'; bytes: number; everyMs: number }
  /** Answer with bytes that are not HTTP at all (a garbling proxy, another protocol on the port), then close. */
  | { kind: 'garbage' }
  /** Send the status line and headers `bytes` at a time, one piece every `everyMs`, then the body at once. */
  | { kind: 'trickle-head'; bytes: number; everyMs: number }
  /** Answer `status` (200 unless said) with a body that never ends, as fast as the client reads it. */
  | { kind: 'endless'; status?: number }
  /** Answer 200 with a response head of `bytes` bytes (one huge header). */
  | { kind: 'big-head'; bytes: number }
  /** Answer `status` with an error page that echoes the request's path, as written and percent-decoded. */
  | { kind: 'echo'; status: number };

export interface Route {
  body?: Buffer | string;
  /** Advertise `Accept-Ranges: bytes` and honour `Range` (default true). */
  ranges?: boolean;
  etag?: string;
  /** Faults for the first requests, one each, in order; then the body is served normally. */
  faults?: Fault[];
  /** A fault for every request (after `faults`). */
  always?: Fault;
}

export interface RecordedRequest {
  path: string;
  query: string;
  range: string | undefined;
  ifRange: string | undefined;
  authorization: string | undefined;
  /** Of a trickled body or head: the bytes sent so far, and whether the last of them was (the client may hang up first). */
  trickled: { sent: number; whole: boolean };
}

export interface FaultServer {
  /** `http://127.0.0.1:<port>` or `https://…` (the `name` given instead of 127.0.0.1). */
  origin: string;
  /** Answers the client closed before their end (an endless body it stopped reading, a stalled one it gave up on). */
  cut: number;
  url(path: string): string;
  route(path: string, route: Route): void;
  requests: RecordedRequest[];
  requestsTo(path: string): RecordedRequest[];
  close(): Promise<void>;
}

/**
 * `name`: the host name the URLs carry instead of 127.0.0.1 (`releases.example.test`), for tests that
 * reach the server through the test proxy, which resolves that name (test/support/proxy-server.ts).
 */
export async function startFaultServer(options: { tls?: boolean; name?: string } = {}): Promise<FaultServer> {
  const routes = new Map<string, { route: Route; served: number }>();
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();

  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const [path = '/', query = ''] = (req.url ?? '/').split('?');
    const record: RecordedRequest = {
      path,
      query,
      range: req.headers.range,
      ifRange: req.headers['if-range'] as string | undefined,
      authorization: req.headers.authorization,
      trickled: { sent: 0, whole: false },
    };
    requests.push(record);
    const entry = routes.get(path);
    if (entry === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    const fault = entry.route.faults?.[entry.served] ?? entry.route.always;
    entry.served += 1;
    res.on('close', () => {
      if (!res.writableFinished) result.cut += 1;
    });
    serve(req, res, entry.route, fault, record);
  };

  const server = options.tls ? https.createServer({ key: testKey, cert: testCert }, handler) : http.createServer(handler);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `${options.tls ? 'https' : 'http'}://${options.name ?? '127.0.0.1'}:${port}`;

  const result: FaultServer = {
    origin,
    cut: 0,
    url: (path) => `${origin}${path}`,
    route(path, route) {
      routes.set(path, { route, served: 0 });
    },
    requests,
    requestsTo: (path) => requests.filter((r) => r.path === path),
    async close() {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return result;
}

function serve(req: http.IncomingMessage, res: http.ServerResponse, route: Route, fault: Fault | undefined, record: RecordedRequest): void {
  const body = Buffer.isBuffer(route.body) ? route.body : Buffer.from(route.body ?? '');
  const ranges = route.ranges ?? true;
  const base: Record<string, string> = { 'content-type': 'application/octet-stream' };
  if (ranges) base['accept-ranges'] = 'bytes';
  if (route.etag !== undefined) base.etag = route.etag;

  switch (fault?.kind) {
    case 'status':
      res.writeHead(fault.status, { 'content-type': 'text/plain', ...fault.headers }).end(`status ${fault.status}\n`);
      return;
    case 'redirect':
      res.writeHead(fault.status ?? 302, { location: fault.to }).end();
      return;
    case 'no-answer':
      return;
    case 'wrong-length': {
      // Raw bytes on the socket: Node's own response writer would not lie about the length.
      const socket = res.socket as Socket;
      const sent = body.subarray(0, Math.min(fault.contentLength, body.length));
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ncontent-length: ${fault.contentLength}\r\nconnection: close\r\n\r\n`);
      socket.end(sent);
      return;
    }
    case 'garbage':
      (res.socket as Socket).end('SSH-2.0-OpenSSH_9.6\r\nthis is not an HTTP response\r\n\r\n');
      return;
    case 'trickle-head': {
      // Raw bytes on the socket: Node's own response writer sends the head in one piece. A few
      // padding headers make the head long enough to outlast any timeout a test sets.
      const socket = res.socket as Socket;
      const padding = Array.from({ length: 8 }, (_, i) => `x-padding-${i}: ${'p'.repeat(32)}\r\n`).join('');
      const head = Buffer.from(
        `HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ncontent-length: ${body.length}\r\n${padding}connection: close\r\n\r\n`,
      );
      let offset = 0;
      const timer = setInterval(() => {
        if (socket.destroyed) return clearInterval(timer);
        const piece = head.subarray(offset, offset + fault.bytes);
        offset += piece.length;
        record.trickled.sent = offset;
        if (offset >= head.length) {
          clearInterval(timer);
          record.trickled.whole = true;
          socket.end(Buffer.concat([piece, body]));
        } else {
          socket.write(piece);
        }
      }, fault.everyMs);
      socket.on('close', () => clearInterval(timer));
      return;
    }
    case 'endless': {
      res.writeHead(fault.status ?? 200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on('drain', pump);
      pump();
      return;
    }
    case 'big-head':
      (res.socket as Socket).end(`HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(fault.bytes)}\r\ncontent-length: ${body.length}\r\n\r\n${body.toString('latin1')}`);
      return;
    case 'echo': {
      const raw = req.url ?? '';
      let decoded = raw;
      try {
        decoded = decodeURIComponent(raw);
      } catch {
        // a malformed escape: the raw path only
      }
      res.writeHead(fault.status, { 'content-type': 'text/html' }).end(`<html><body>Cannot ${req.method} ${raw} (${decoded})</body></html>\n`);
      return;
    }
    case 'no-length':
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(body);
      return;
    default:
      break;
  }

  // The normal answer, possibly a range, possibly cut or stalled.
  let start = 0;
  let status = 200;
  const headers = { ...base };
  const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
  const ifRange = req.headers['if-range'];
  const rangeValid = range !== null && (ifRange === undefined || ifRange === route.etag);
  if (ranges && rangeValid && fault?.kind !== 'ignore-range') {
    start = Number(range[1]);
    if (start >= body.length) {
      res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
      return;
    }
    status = 206;
    headers['content-range'] = `bytes ${start}-${body.length - 1}/${body.length}`;
  }
  const part = body.subarray(start);
  headers['content-length'] = String(part.length);
  res.writeHead(status, headers);
  if (fault?.kind === 'trickle') {
    let offset = 0;
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      const piece = part.subarray(offset, offset + fault.bytes);
      offset += piece.length;
      record.trickled.sent = offset;
      if (offset >= part.length) {
        clearInterval(timer);
        record.trickled.whole = true;
        res.end(piece);
      } else {
        res.write(piece);
      }
    }, fault.everyMs);
    res.on('close', () => clearInterval(timer));
    return;
  }
  if (fault?.kind === 'drop' || fault?.kind === 'stall') {
    const head = part.subarray(0, Math.min(fault.afterBytes, part.length));
    const cut = fault.kind === 'drop';
    res.write(head, () => {
      if (cut) res.socket?.destroy();
    });
    return;
  }
  res.end(part);
}
