/**
 * A forward proxy on 127.0.0.1, port 0, as a company's egress proxy: CONNECT tunnels (for https URLs)
 * and absolute-form requests (for http URLs). It resolves names itself from `hosts` (for example
 * `releases.example.test` → `127.0.0.1`), so such a name works only through the proxy — a client that
 * goes direct fails to resolve it. With `credentials`, a request without the right
 * `Proxy-Authorization: Basic` is answered 407. Every request is recorded (method, target, the
 * credentials sent) so tests can say what went through it. Faults: a stuck proxy, a refused or
 * garbled tunnel; with `tls` it is an https:// proxy. `close()` ends every connection.
 */
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo, type Socket } from 'node:net';

import { testCert, testKey } from './tls.js';

export interface ProxyRequest {
  method: string;
  /** `host:port` for CONNECT, the absolute URL otherwise. */
  target: string;
  proxyAuthorization: string | undefined;
}

export interface ProxyServerOptions {
  /** Names this proxy resolves, to the address it connects to. */
  hosts: Record<string, string>;
  /** `user:password` the proxy requires. */
  credentials?: string;
  /** Accept connections and never answer them (a stuck proxy). */
  silent?: boolean;
  /** Answer every CONNECT with this status instead (403: a proxy that does not allow the host). */
  connectStatus?: number;
  /** Answer CONNECT with 200, then send bytes that are not the server's (a proxy that garbles the tunnel). */
  garbleTunnel?: boolean;
  /** Listen with TLS (an https:// proxy), with the test CA's certificate (test/support/tls.ts). */
  tls?: boolean;
}

export interface ProxyServer {
  /** `http://127.0.0.1:<port>` (`https://` with `tls`). */
  url: string;
  /** `127.0.0.1:<port>`, as a proxy variable is often written (no scheme). */
  hostPort: string;
  requests: ProxyRequest[];
  close(): Promise<void>;
}

export async function startProxyServer(options: ProxyServerOptions): Promise<ProxyServer> {
  const requests: ProxyRequest[] = [];
  const sockets = new Set<Socket>();
  const expected = options.credentials === undefined ? undefined : `Basic ${Buffer.from(options.credentials).toString('base64')}`;
  const resolve = (host: string): string | undefined => options.hosts[host.toLowerCase()];
  const authorized = (header: string | undefined): boolean => expected === undefined || header === expected;

  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const proxyAuthorization = req.headers['proxy-authorization'];
    requests.push({ method: req.method ?? '', target: req.url ?? '', proxyAuthorization });
    if (options.silent) return;
    if (!authorized(proxyAuthorization)) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test proxy"', 'content-type': 'text/plain' }).end('proxy authentication required\n');
      return;
    }
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute-form request expected\n');
      return;
    }
    const address = resolve(target.hostname);
    if (address === undefined) {
      res.writeHead(502).end(`cannot resolve ${target.hostname}\n`);
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = http.request(
      { host: address, port: target.port || 80, path: `${target.pathname}${target.search}`, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  };
  const server = options.tls ? https.createServer({ key: testKey, cert: testCert }, handler) : http.createServer(handler);

  server.on('connect', (req: http.IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    const proxyAuthorization = req.headers['proxy-authorization'];
    requests.push({ method: 'CONNECT', target: req.url ?? '', proxyAuthorization });
    if (options.silent) return;
    if (!authorized(proxyAuthorization)) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test proxy"\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    if (options.connectStatus !== undefined) {
      client.end(`HTTP/1.1 ${options.connectStatus} Refused\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    if (options.garbleTunnel) {
      client.end('HTTP/1.1 200 Connection Established\r\n\r\nSSH-2.0-OpenSSH_9.6\r\nthis is not the server\r\n\r\n');
      return;
    }
    const [host = '', port = '443'] = (req.url ?? '').split(/:(?=\d+$)/);
    const address = resolve(host);
    if (address === undefined) {
      client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const upstream = net.connect(Number(port), address, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  for (const event of ['connection', 'secureConnection']) {
    server.on(event, (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
  }

  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
