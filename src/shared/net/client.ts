/**
 * chainvisor's one HTTP client, on undici 8: binaries, Info documents and webhooks all go through
 * it, so all of them reach the network the way cosmovisor does — through the proxy the environment
 * names (./proxy.ts, Go's rules) and trusting what the host trusts (./trust.ts).
 * Why, and the rest of its rules: docs/design/downloads.md#sharednetclientts.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import type { SecureContext } from 'node:tls';

import type { buildConnector, Dispatcher } from 'undici';

import { redactUrl } from '../redact.js';
import { basicAuthorization, type Credentials } from './credentials.js';
import { asTransportError, CertificateError, certificateProblem, ProxyAuthError, ProxyStatusError, ProxyUnusableError } from './errors.js';
import { proxyChoiceFor, type ProxySettings, proxySettings, shownProxy } from './proxy.js';
import { secureContextFor } from './trust.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface HttpClientOptions {
  /** Each of the three time limits, in ms. */
  timeoutMs: number;
  /** Where the proxy variables and SSL_CERT_FILE/SSL_CERT_DIR are read; default process.env. */
  env?: Env;
  /** A CA trusted besides the host's (tests trust their private CA this way). */
  extraCa?: string | Buffer;
  /**
   * How long a connection stays open for the next request when the server does not say (undici's
   * default: 4 s). A client that asks every few seconds keeps one connection instead of opening one per
   * request; a server's own `Keep-Alive: timeout` still wins, less undici's margin of 2 s. Not through
   * a SOCKS5 proxy, whose pools undici makes with its own defaults.
   */
  keepAliveMs?: number;
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
  credentials: Credentials | undefined;
}

export interface HttpClient {
  request(url: URL, request: HttpRequest): Promise<HttpResponse>;
  /** The proxy `url` goes through, or undefined when it goes direct. */
  routeOf(url: URL): Route | undefined;
  close(): Promise<void>;
}

type Undici = typeof import('undici');
type Connector = buildConnector.connector;

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
  // Errors of the connections to a proxy itself, so that a certificate is blamed on the right host.
  const ofProxy = new WeakSet<object>();

  const timeouts = { headersTimeout: timeoutMs, bodyTimeout: timeoutMs };
  const keepAlive = options.keepAliveMs === undefined ? {} : { keepAliveTimeout: options.keepAliveMs };

  function directAgent(u: Undici): Dispatcher {
    if (direct !== undefined) return direct;
    const plain = u.buildConnector({ timeout: timeoutMs });
    let secure: Connector | undefined;
    const connect: Connector = (connectOptions, callback) => {
      if (connectOptions.protocol !== 'https:') return plain(connectOptions, callback);
      secure ??= u.buildConnector({ timeout: timeoutMs, secureContext: secureContext() });
      return secure(connectOptions, callback);
    };
    direct = new u.Agent({ connect, ...timeouts, ...keepAlive });
    return direct;
  }

  /**
   * `connect` to the proxy itself, its failures marked as the proxy's. undici names the proxy's host as
   * the TLS server name even when it is an IP address, which Node 26 refuses outright (Node 22 warned,
   * DEP0123): an https proxy given by its address is reached without one, as Go does, and its
   * certificate is still checked against that address.
   */
  function toProxy(connect: Connector): Connector {
    return (connectOptions, callback) =>
      connect(isIP(connectOptions.servername ?? '') === 0 ? connectOptions : { ...connectOptions, servername: '' }, (error, socket) => {
        if (error !== null) ofProxy.add(error);
        // undici's callback is typed as two overloads; the arguments are passed on as they came.
        (callback as (error: Error | null, socket: unknown) => void)(error, socket);
      });
  }

  function proxyAgent(u: Undici, route: Route): Dispatcher {
    const key = route.proxy.href;
    let agent = proxies.get(key);
    if (agent !== undefined) return agent;
    const tlsOptions = () => ({ timeout: timeoutMs, secureContext: secureContext() });
    const bare = new URL(route.proxy.href);
    bare.username = '';
    bare.password = '';
    if (bare.protocol === 'socks5:') {
      agent = quietly(
        () =>
          new u.Socks5ProxyAgent(bare.href, {
            connect: toProxy(u.buildConnector({ timeout: timeoutMs })),
            connectTimeout: timeoutMs,
            requestTls: tlsOptions(),
            ...(route.credentials === undefined ? {} : { username: route.credentials.user, password: route.credentials.password }),
          }),
      );
    } else {
      // The pools that connect to the proxy itself (the CONNECT client, and the client of an http URL's
      // absolute-form requests) mark their connection failures; the tunnels' pools do not.
      const pool = (origin: URL | string, opts: object) => {
        const { connect } = opts as { connect?: unknown };
        const toTheProxy = new URL(String(origin)).origin === bare.origin && typeof connect === 'function';
        return new u.Pool(origin, { ...opts, ...(toTheProxy ? { connect: toProxy(connect as Connector) } : {}), ...timeouts, ...keepAlive });
      };
      agent = new u.ProxyAgent({
        uri: bare.href,
        ...(route.credentials === undefined ? {} : { token: basicAuthorization(route.credentials) }),
        ...timeouts,
        connectTimeout: timeoutMs,
        requestTls: tlsOptions(),
        ...(bare.protocol === 'https:' ? { proxyTls: tlsOptions() } : {}),
        // The CONNECT exchange and the forwarded requests get the same time limits as a direct one.
        clientFactory: pool,
        factory: pool,
      });
    }
    proxies.set(key, agent);
    return agent;
  }

  function routeOf(url: URL): Route | undefined {
    const choice = proxyChoiceFor(url, settings);
    if (choice?.url === undefined) return undefined;
    return { proxy: choice.url, variable: choice.variable.name, shown: shownProxy(choice.url), credentials: choice.credentials };
  }

  return {
    routeOf,
    async request(url, request) {
      const unusable = proxyChoiceFor(url, settings);
      if (unusable?.problem !== undefined) throw new ProxyUnusableError(unusable.variable.name, unusable.variable.name, unusable.problem);
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
          // Per request too: a SOCKS5 proxy's pools take no time limits of their own.
          ...timeouts,
          ...(request.body === undefined ? {} : { body: request.body }),
          ...(request.signal === undefined ? {} : { signal: request.signal }),
        });
        return { statusCode: response.statusCode, headers: response.headers, body: response.body as unknown as Readable };
      } catch (error) {
        const proxyFailure = route !== undefined && isProxyFailure(error, ofProxy);
        const problem = certificateProblem(error);
        if (problem !== undefined) {
          const host = proxyFailure ? route.proxy.host : url.host;
          throw new CertificateError(host, problem, { cause: error, ...(proxyFailure ? { proxy: { shown: route.shown, variable: route.variable } } : {}) });
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

/** Whether `error` (or what it wraps) came from the connection to the proxy itself. */
function isProxyFailure(error: unknown, ofProxy: WeakSet<object>): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 3 && current instanceof Error; depth++) {
    // undici wraps a proxy's certificate name mismatch in SecureProxyConnectionError.
    if (ofProxy.has(current) || (current as { code?: unknown }).code === 'UND_ERR_PRX_TLS') return true;
    current = current.cause;
  }
  return false;
}

/** A failure through a proxy: its refusals named as the proxy's, the rest as for a direct request. */
function asProxyError(error: unknown, route: Route, url: URL, timeoutMs: number): unknown {
  const message = error instanceof Error ? error.message : '';
  const code = (error as { code?: unknown } | null)?.code;
  const target = redactUrl(url);
  if (code === 'UND_ERR_SOCKS5_AUTH_REJECTED')
    return new ProxyAuthError(route.shown, route.variable, route.credentials === undefined ? 'missing' : 'method', target, 'refused to go on without a login');
  if (code === 'UND_ERR_SOCKS5_AUTH_FAILED') return new ProxyAuthError(route.shown, route.variable, 'refused', target, 'refused the SOCKS5 login');
  if (typeof code === 'string' && /^UND_ERR_SOCKS5_(VERSION|AUTH_METHOD|AUTH_VERSION|REPLY_VERSION|ADDR_TYPE)$/.test(code)) {
    return new ProxyUnusableError(
      `the proxy ${route.shown} (${route.variable})`,
      route.variable,
      `it does not answer as a SOCKS5 proxy (${code}: ${message}); check the scheme in ${route.variable} (an http proxy is http://host:port)`,
      { cause: error },
    );
  }
  const status = /Proxy response \((\d{3})\)/.exec(message)?.[1] ?? (/Proxy Authentication Required \((407)\)/.exec(message) ? '407' : undefined);
  if (status === '407')
    return new ProxyAuthError(
      route.shown,
      route.variable,
      route.credentials === undefined ? 'missing' : 'refused',
      target,
      'answered 407 Proxy Authentication Required',
    );
  if (status !== undefined) return new ProxyStatusError(Number(status), `${route.shown} (${route.variable})`, url.host);
  return asTransportError(error, timeoutMs);
}

/**
 * Runs `make` without the ExperimentalWarning undici's SOCKS5 agent prints the first time one is made
 * (Node's own line on the operator's log, about an implementation detail); every other warning passes.
 */
function quietly<T>(make: () => T): T {
  const emitWarning = process.emitWarning;
  process.emitWarning = (warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (text.startsWith('SOCKS5 proxy support is experimental')) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  };
  try {
    return make();
  } finally {
    process.emitWarning = emitWarning;
  }
}
