/**
 * chainvisor's one HTTP client, on undici 8: binaries, Info documents and webhooks all go through it,
 * so all of them reach the network the way cosmovisor does — through the proxy the environment names
 * (./proxy.ts, Go's rules) and trusting what the host trusts (./trust.ts).
 *
 * Time limits, all CHAINVISOR_DOWNLOAD_TIMEOUT (or the caller's): `connect` (TCP and TLS, to the
 * server or to the proxy, and the TLS inside a proxy's tunnel), `headersTimeout` (the complete
 * response head, and the proxy's answer to CONNECT: undici arms it once the request is sent and does
 * not refresh it as head bytes trickle in, so a head sent a byte at a time is cut) and `bodyTimeout`
 * (the longest pause in the body; not counted while the caller holds the body back). Redirects are
 * not followed here (undici 8 follows none unless asked): the URL policy judges every hop (the
 * download's http.ts).
 *
 * https URLs go through a proxy in a CONNECT tunnel; http URLs as absolute-form requests to it, as Go
 * does (a proxy may allow CONNECT to port 443 only). Proxy credentials in the URL are sent as
 * `Proxy-Authorization: Basic` and never leave this module in a message.
 *
 * undici is imported on the first request, not with this module: chainvisor's start-up and the idle
 * memory of `chainvisor run` do not pay for a client most runs never use. undici 8 and not 7: 7 threw
 * an uncatchable assertion when a server closed during backpressure (nodejs/undici#5360).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { SecureContext } from 'node:tls';

import type { Dispatcher } from 'undici';

import { redactUrl } from '../redact.js';
import { asTransportError, CertificateError, certificateProblem, ProxyAuthError, ProxyStatusError } from './errors.js';
import { proxyFor, type ProxySettings, proxySettings, shownProxy } from './proxy.js';
import { secureContextFor } from './trust.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface HttpClientOptions {
  /** Each of the three time limits, in ms. */
  timeoutMs: number;
  /** Where the proxy variables and SSL_CERT_FILE/SSL_CERT_DIR are read; default process.env. */
  env?: Env;
  /** A CA trusted besides the host's (tests trust their private CA this way). */
  extraCa?: string | Buffer;
}

export interface HttpRequest {
  method?: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal | undefined;
}

export interface HttpResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Readable;
}

/** How a URL is reached: directly, or through a proxy named by a variable. */
export interface Route {
  proxy: URL;
  /** `HTTPS_PROXY`, `http_proxy`, … as spelled in the environment. */
  variable: string;
  /** The proxy as it may be shown: `http://***@proxy:3128`. */
  shown: string;
}

export interface HttpClient {
  request(url: URL, request: HttpRequest): Promise<HttpResponse>;
  /** The proxy `url` goes through, or undefined when it goes direct. */
  routeOf(url: URL): Route | undefined;
  close(): Promise<void>;
}

type Undici = typeof import('undici');

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const env = options.env ?? process.env;
  const settings: ProxySettings = proxySettings(env);
  const { timeoutMs } = options;
  let undici: Promise<Undici> | undefined;
  const load = (): Promise<Undici> => (undici ??= import('undici'));
  let direct: Dispatcher | undefined;
  const proxies = new Map<string, Dispatcher>();
  // The trust store is read before the first request that may need it, not before: an http-only client
  // never pays for it. Read off the event loop (its files may be anything: a FIFO, a link to /dev/zero),
  // then kept for the connectors, which take it synchronously.
  let context: SecureContext | undefined;
  const loadContext = async (): Promise<void> => {
    context ??= await secureContextFor(env, options.extraCa);
  };
  const secureContext = (): SecureContext => {
    if (context === undefined) throw new Error('the trust store is read before the first https connection');
    return context;
  };

  const timeouts = { headersTimeout: timeoutMs, bodyTimeout: timeoutMs };

  function directAgent(u: Undici): Dispatcher {
    if (direct !== undefined) return direct;
    const plain = u.buildConnector({ timeout: timeoutMs });
    let secure: ReturnType<Undici['buildConnector']> | undefined;
    const connect: typeof plain = (connectOptions, callback) => {
      if (connectOptions.protocol !== 'https:') return plain(connectOptions, callback);
      secure ??= u.buildConnector({ timeout: timeoutMs, secureContext: secureContext() });
      return secure(connectOptions, callback);
    };
    direct = new u.Agent({ connect, ...timeouts });
    return direct;
  }

  function proxyAgent(u: Undici, route: Route): Dispatcher {
    const key = route.proxy.href;
    let agent = proxies.get(key);
    if (agent !== undefined) return agent;
    const tlsOptions = () => ({ timeout: timeoutMs, secureContext: secureContext() });
    const withTimeouts = (origin: URL | string, opts: object) => new u.Pool(origin, { ...opts, ...timeouts });
    const proxyUrl = new URL(route.proxy.href);
    const token =
      proxyUrl.username !== '' || proxyUrl.password !== ''
        ? `Basic ${Buffer.from(`${decodeURIComponent(proxyUrl.username)}:${decodeURIComponent(proxyUrl.password)}`).toString('base64')}`
        : undefined;
    proxyUrl.username = '';
    proxyUrl.password = '';
    agent = new u.ProxyAgent({
      uri: proxyUrl.href,
      ...(token === undefined ? {} : { token }),
      ...timeouts,
      connectTimeout: timeoutMs,
      requestTls: tlsOptions(),
      ...(proxyUrl.protocol === 'https:' ? { proxyTls: tlsOptions() } : {}),
      // The CONNECT exchange and the forwarded requests get the same time limits as a direct one.
      clientFactory: withTimeouts,
      factory: withTimeouts,
    });
    proxies.set(key, agent);
    return agent;
  }

  function routeOf(url: URL): Route | undefined {
    const choice = url.protocol === 'https:' ? settings.https : settings.http;
    if (choice?.url === undefined) return undefined;
    const proxy = proxyFor(url, settings);
    return proxy === undefined ? undefined : { proxy, variable: choice.variable.name, shown: shownProxy(proxy) };
  }

  return {
    routeOf,
    async request(url, request) {
      const u = await load();
      const route = routeOf(url);
      // A proxy's agent takes its TLS options when it is made, whatever the first URL through it.
      if (url.protocol === 'https:' || route !== undefined) await loadContext();
      const dispatcher = route === undefined ? directAgent(u) : proxyAgent(u, route);
      try {
        const response = await u.request(url, {
          method: request.method ?? 'GET',
          dispatcher,
          headers: request.headers,
          ...(request.body === undefined ? {} : { body: request.body }),
          ...(request.signal === undefined ? {} : { signal: request.signal }),
        });
        return { statusCode: response.statusCode, headers: response.headers, body: response.body as unknown as Readable };
      } catch (error) {
        const problem = certificateProblem(error);
        if (problem !== undefined) {
          // An https proxy's own certificate comes wrapped by undici as UND_ERR_PRX_TLS.
          const ofProxy = route !== undefined && (error as { code?: unknown }).code === 'UND_ERR_PRX_TLS';
          throw new CertificateError(ofProxy ? route.proxy.host : url.host, problem, { cause: error, ...(ofProxy ? { proxy: route.shown } : {}) });
        }
        throw route === undefined ? asTransportError(error, timeoutMs) : asProxyError(error, route, url, timeoutMs);
      }
    },
    async close() {
      const all = [...(direct === undefined ? [] : [direct]), ...proxies.values()];
      direct = undefined;
      proxies.clear();
      await Promise.all(all.map((dispatcher) => dispatcher.destroy()));
    },
  };
}

/** A failure through a proxy: its refusals named as the proxy's, the rest as for a direct request. */
function asProxyError(error: unknown, route: Route, url: URL, timeoutMs: number): unknown {
  const message = error instanceof Error ? error.message : '';
  const status = /Proxy response \((\d{3})\)/.exec(message)?.[1] ?? (/Proxy Authentication Required \((407)\)/.exec(message) ? '407' : undefined);
  if (status === '407') {
    const hadCredentials = route.proxy.username !== '' || route.proxy.password !== '';
    return new ProxyAuthError(route.shown, route.variable, hadCredentials, redactUrl(url));
  }
  if (status !== undefined) return new ProxyStatusError(Number(status), `${route.shown} (${route.variable})`, url.host);
  return asTransportError(error, timeoutMs);
}
