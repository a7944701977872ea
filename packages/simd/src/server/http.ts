/** Small HTTP plumbing shared by the RPC and REST servers. */
import type http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

import { SimError } from '../util/errors.js';

/**
 * `createServer` of node:http, through require(). An ES module import of node:http makes Node.js copy
 * every export into the import's namespace, and reading its lazy `WebSocket` export loads Node's
 * internal undici: 35 ms of CPU at every `simd start`, which the tests run about 150 times.
 */
export const { createServer } = createRequire(import.meta.url)('node:http') as typeof http;

export interface ListenAddress {
  host: string;
  port: number;
}

/** Parses `tcp://127.0.0.1:26657`, `127.0.0.1:9090` or `localhost:0`. */
export function parseListenAddress(text: string, flag: string): ListenAddress {
  const match = /^(?:tcp:\/\/)?(\[[^\]]+\]|[^:/]+):(\d+)$/.exec(text.trim());
  const port = Number(match?.[2]);
  if (match === null || !(port >= 0 && port <= 65535)) {
    throw new SimError('SIM_BAD_ADDRESS', `invalid ${flag} ${JSON.stringify(text)}: expected host:port, e.g. tcp://127.0.0.1:0`);
  }
  return { host: (match[1] as string).replace(/^\[|\]$/g, ''), port };
}

export function formatHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

export function listenError(flag: string, address: string, error: unknown): SimError {
  const code = (error as NodeJS.ErrnoException).code;
  return new SimError('SIM_LISTEN', `cannot listen on ${flag} ${address}: ${code ?? (error as Error).message}`, {
    cause: error,
    hint: code === 'EADDRINUSE' ? 'another process uses this port: stop it or choose another address (port 0 picks a free one)' : undefined,
  });
}

export async function listen(server: http.Server, address: ListenAddress, flag: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    const onError = (error: unknown) => reject(listenError(flag, formatHostPort(address.host, address.port), error));
    server.once('error', onError);
    server.listen(address.port, address.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

export async function closeServer(server: http.Server): Promise<void> {
  if (!server.listening) return;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await closed;
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function readBody(req: http.IncomingMessage, limit = 4 * 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new SimError('SIM_BODY_TOO_LARGE', `request body over ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
