/**
 * The HTTP endpoint (CHAINVISOR_HTTP_ADDRESS): `GET /metrics`, `/healthz` and `/status`, nothing else.
 * With CHAINVISOR_HTTP_TOKEN every request must carry `Authorization: Bearer <token>` (compared in
 * constant time); a missing or wrong one gets 401. Handlers only read state: the endpoint cannot
 * change what the supervisor does, and a slow scrape cannot delay it.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { ChainvisorError } from '../../shared/errors/index.js';
import type { Logger } from '../../shared/log.js';
import type { ListenAddress } from './address.js';

export interface Routes {
  metrics(): Promise<{ contentType: string; body: string }>;
  health(): Promise<{ ok: boolean; reason: string | null }>;
  status(): Promise<unknown>;
}

export interface HttpServer {
  /** `host:port` actually listened on (the port is known even when 0 was asked). */
  address: string;
  close(): Promise<void>;
}

export async function startHttpServer(options: { listen: ListenAddress; token: string; routes: Routes; logger: Logger }): Promise<HttpServer> {
  const { listen, routes, logger } = options;
  const expected = options.token === '' ? undefined : digest(options.token);
  const server = http.createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      logger.warn({ err: error, path: req.url }, 'HTTP endpoint: request failed');
      if (!res.headersSent) send(res, 500, 'application/json', JSON.stringify({ error: 'internal error' }));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5000;
  server.requestTimeout = 30_000;

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (expected !== undefined && !authorized(req.headers.authorization, expected)) {
      res.setHeader('www-authenticate', 'Bearer realm="chainvisor"');
      send(res, 401, 'application/json', JSON.stringify({ error: 'missing or wrong bearer token (CHAINVISOR_HTTP_TOKEN)' }));
      return;
    }
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      send(res, 405, 'application/json', JSON.stringify({ error: 'only GET' }));
      return;
    }
    if (path === '/metrics') {
      const { contentType, body } = await routes.metrics();
      send(res, 200, contentType, body);
    } else if (path === '/healthz') {
      const health = await routes.health();
      send(res, health.ok ? 200 : 503, 'application/json', JSON.stringify(health.ok ? { status: 'ok' } : { status: 'unhealthy', reason: health.reason }));
    } else if (path === '/status') {
      send(res, 200, 'application/json', `${JSON.stringify(await routes.status(), null, 2)}\n`);
    } else {
      send(res, 404, 'application/json', JSON.stringify({ error: 'not found; try /metrics, /healthz or /status' }));
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new ChainvisorError(
          'CHAINVISOR_HTTP_LISTEN_FAILED',
          `cannot listen on CHAINVISOR_HTTP_ADDRESS ${listen.host}:${listen.port}: ${error.code ?? error.message}`,
          {
            hint: error.code === 'EADDRINUSE' ? 'another process uses that port; pick another one' : 'check the address (an IP of this host, or localhost)',
            cause: error,
          },
        ),
      );
    });
    server.listen(listen.port, listen.host, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  const address = bound.family === 'IPv6' ? `[${bound.address}]:${bound.port}` : `${bound.address}:${bound.port}`;
  return {
    address,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function send(res: http.ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

/** Hashing both sides first gives equal lengths, so the comparison leaks neither content nor length. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function authorized(header: string | undefined, expected: Buffer): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
  const given = digest(m ? (m[1] as string).trim() : '');
  return timingSafeEqual(given, expected) && m !== null;
}
