/**
 * The download's former HTTP client, node's own `http`/`https` with one connection per request and
 * the same three time limits, kept for `bench:download` only: the benchmark runs it beside undici
 * (chainvisor's client since issue 24) in one run. Taken from the history (src/download/transport.ts
 * before undici) and shaped as an `HttpClient`; no proxies, no host trust store: direct requests only.
 */
import http from 'node:http';
import https from 'node:https';

import type { HttpClient } from '../../src/shared/net/index.js';
import { TransportTimeout } from '../../src/shared/net/index.js';

export function createNodeHttpClient(options: { timeoutMs: number }): HttpClient {
  const agents = { http: new http.Agent({ keepAlive: false }), https: new https.Agent({ keepAlive: false }) };
  return {
    routeOf: () => undefined,
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
        const headTimer = setTimeout(() => {
          req.destroy(new TransportTimeout(req.socket?.connecting === false ? 'headers' : 'connect', options.timeoutMs));
        }, options.timeoutMs);
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
