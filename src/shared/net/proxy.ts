/**
 * Which proxy a request goes through, by Go's rules (golang.org/x/net/http/httpproxy, what
 * cosmovisor's go-getter transport uses), so that a validator whose only way out is a proxy downloads
 * with chainvisor wherever it did with cosmovisor. A proxy value that cannot be parsed is reported
 * (`proxyProblems`), not skipped.
 * Why, and the rest of its rules: docs/design/downloads.md#sharednetproxyts.
 */
import { BlockList, isIP } from 'node:net';
import { domainToASCII } from 'node:url';

import { redactUrl } from '../redact.js';
import { type Credentials, splitCredentials } from './credentials.js';

type Env = Readonly<Record<string, string | undefined>>;

/** A proxy variable as read: its name (the spelling that was used) and its value. */
export interface ProxyVariable {
  name: string;
  value: string;
}

export interface ProxySettings {
  /** For http URLs, when set. */
  http: ProxyChoice | undefined;
  /** For https URLs, when set. */
  https: ProxyChoice | undefined;
  /** NO_PROXY as read (the spelling that was used), when set. */
  noProxy: ProxyVariable | undefined;
  /** `*` in NO_PROXY: no request is proxied. */
  noneProxied: boolean;
  /** Whether a host (lower-case, no brackets) and port (the URL's, default filled in) bypass the proxy. */
  bypass(host: string, port: string): boolean;
}

export interface ProxyChoice {
  variable: ProxyVariable;
  /** The proxy's URL, credentials included; undefined when the value is not a usable proxy URL. */
  url: URL | undefined;
  /** The user and password in the URL, decoded. */
  credentials: Credentials | undefined;
  /** Why the value cannot be used, when it cannot. */
  problem: string | undefined;
}

/** The first non-empty of the spellings, upper-case first, as Go's `getEnvAny`. */
function readVariable(env: Env, name: string): ProxyVariable | undefined {
  for (const spelling of [name, name.toLowerCase()]) {
    const value = env[spelling];
    if (value !== undefined && value !== '') return { name: spelling, value };
  }
  return undefined;
}

const proxySchemes = new Set(['http:', 'https:', 'socks5:', 'socks5h:']);

/**
 * Go's `parseProxy`: the value as a URL; a value without a scheme is read as `http://<value>`. A
 * scheme other than http, https and socks5 is a problem (Go would try `http://ftp://…` and fail later),
 * and so are credentials that cannot be decoded or sent: Go would send them garbled, or not at all.
 */
function parseProxy(variable: ProxyVariable): ProxyChoice {
  const value = variable.value.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1]?.toLowerCase();
  const unusable = (problem: string): ProxyChoice => ({ variable, url: undefined, credentials: undefined, problem });
  if (scheme !== undefined && !proxySchemes.has(`${scheme}:`)) {
    return unusable(`a ${scheme}:// proxy is not supported: use an http://, https:// or socks5:// proxy`);
  }
  let url: URL;
  try {
    url = new URL(scheme === undefined ? `http://${value}` : value);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return unusable(
      'not a proxy URL: write it as http://host:port (or https://, socks5://), with user:password@ before the host when the proxy needs credentials',
    );
  }
  if (url.hostname === '') return unusable('the proxy URL names no host: write it as http://host:port');
  if (url.protocol === 'socks5h:') url = new URL(`socks5:${url.href.slice('socks5h:'.length)}`);
  const split = splitCredentials(url);
  if (!split.ok) return unusable(split.problem);
  const { credentials } = split;
  if (url.protocol === 'socks5:' && credentials !== undefined) {
    // RFC 1929 carries both, each at most 255 bytes; undici offers the login only with both set.
    if (credentials.user === '' || credentials.password === '')
      return unusable('a SOCKS5 proxy takes a user and a password together: write socks5://user:password@host:port');
    if (Buffer.byteLength(credentials.user) > 255 || Buffer.byteLength(credentials.password) > 255)
      return unusable('a SOCKS5 user or password is at most 255 bytes long');
  }
  return { variable, url, credentials, problem: undefined };
}

/** Reads HTTP_PROXY, HTTPS_PROXY and NO_PROXY (either spelling) from `env`. */
export function proxySettings(env: Env = process.env): ProxySettings {
  const httpVar = readVariable(env, 'HTTP_PROXY');
  const httpsVar = readVariable(env, 'HTTPS_PROXY');
  const noProxy = readVariable(env, 'NO_PROXY');
  const matchers = parseNoProxy(noProxy?.value ?? '');
  return {
    http: httpVar === undefined ? undefined : parseProxy(httpVar),
    https: httpsVar === undefined ? undefined : parseProxy(httpsVar),
    noProxy,
    noneProxied: matchers === 'all',
    bypass: (host, port) => matchers === 'all' || matchers.some((match) => match(host, port)),
  };
}

/** The proxy for `url` (credentials included), or undefined when it goes direct. */
export function proxyFor(url: URL, settings: ProxySettings): URL | undefined {
  return proxyChoiceFor(url, settings)?.url;
}

/**
 * The variable whose proxy `url` goes through, usable or not (its `problem` then says why), or
 * undefined when `url` goes direct: none set, a loopback host, or NO_PROXY.
 */
export function proxyChoiceFor(url: URL, settings: ProxySettings): ProxyChoice | undefined {
  const choice = url.protocol === 'https:' ? settings.https : url.protocol === 'http:' ? settings.http : undefined;
  if (choice === undefined) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isLoopback(host)) return undefined;
  const port = url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80';
  return settings.bypass(host, port) ? undefined : choice;
}

/** `localhost` and loopback IPs (127.0.0.0/8, ::1, ::ffff:127.x): never proxied, as in Go. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  const family = isIP(host);
  if (family === 4) return host.startsWith('127.');
  if (family === 6) return loopback6.check(host, 'ipv6');
  return false;
}

const loopback6 = new BlockList();
loopback6.addAddress('::1', 'ipv6');
loopback6.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

type Matcher = (host: string, port: string) => boolean;

/** Go's `config.init` for NO_PROXY: one matcher per entry, or 'all' for `*`. */
function parseNoProxy(value: string): Matcher[] | 'all' {
  const matchers: Matcher[] = [];
  for (const raw of value.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return 'all';
    const cidr = parseCidr(entry);
    if (cidr !== undefined) {
      matchers.push((host) => isIP(host) !== 0 && cidr.check(host, isIP(host) === 4 ? 'ipv4' : 'ipv6'));
      continue;
    }
    const [host, entryPort] = splitHostPort(entry);
    let entryHost = host;
    if (entryHost === '') continue;
    if (isIP(entryHost) !== 0) {
      const ip = entryHost;
      matchers.push((host, port) => isIP(host) !== 0 && sameIp(host, ip) && (entryPort === '' || entryPort === port));
      continue;
    }
    // foo.com matches foo.com and bar.foo.com; .foo.com (or *.foo.com) only bar.foo.com.
    if (entryHost.startsWith('*.')) entryHost = entryHost.slice(1);
    // Hosts arrive in URLs as punycode; a NO_PROXY entry may be written in Unicode.
    entryHost = entryHost.replace(/[^.]+/g, (label) => domainToASCII(label) || label);
    const matchSelf = !entryHost.startsWith('.');
    const suffix = matchSelf ? `.${entryHost}` : entryHost;
    matchers.push((host, port) => (host.endsWith(suffix) || (matchSelf && host === suffix.slice(1))) && (entryPort === '' || entryPort === port));
  }
  return matchers;
}

function parseCidr(entry: string): BlockList | undefined {
  const m = /^(.+)\/(\d{1,3})$/.exec(entry);
  if (m === null) return undefined;
  const [, address = '', bits = ''] = m;
  const family = isIP(address);
  const prefix = Number(bits);
  if (family === 0 || prefix > (family === 4 ? 32 : 128)) return undefined;
  const list = new BlockList();
  list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  return list;
}

/**
 * Go's `net.SplitHostPort` as httpproxy uses it: `host:port` splits at its one colon, `[v6]:port` at
 * the bracket, and the port may be empty (`foo.com:` is `foo.com` on any port) or not a number (it
 * then matches no URL); anything else (`a:b:c`, a bare IPv6 address) is a host without a port. Unlike
 * Go, `[v6]` without a port is read as that address, as the brackets invite.
 */
function splitHostPort(entry: string): [string, string] {
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(entry);
  if (bracketed !== null) return [bracketed[1] ?? '', bracketed[2] ?? ''];
  const colon = entry.lastIndexOf(':');
  if (colon === -1 || entry.indexOf(':') !== colon || /[[\]]/.test(entry)) return [entry, ''];
  return [entry.slice(0, colon), entry.slice(colon + 1)];
}

function sameIp(a: string, b: string): boolean {
  if (a === b) return true;
  const list = new BlockList();
  const family = isIP(b) === 4 ? 'ipv4' : 'ipv6';
  list.addAddress(b, family);
  return list.check(a, isIP(a) === 4 ? 'ipv4' : 'ipv6');
}

/** The proxy URL as it may be shown: no credentials (`http://***@proxy:3128`), no query. */
export function shownProxy(url: URL): string {
  return redactUrl(url).replace(/\/$/, '');
}

/** Every proxy variable whose value cannot be used, as `[variable, value, problem]` (values redacted). */
export function proxyProblems(settings: ProxySettings): { setting: string; value: string; message: string }[] {
  return [settings.http, settings.https]
    .filter((choice): choice is ProxyChoice & { problem: string } => choice?.problem !== undefined)
    .map((choice) => ({ setting: choice.variable.name, value: redactProxyValue(choice.variable.value), message: choice.problem }));
}

/** A proxy value that is not a URL, shown without what could be credentials (anything before an `@`). */
function redactProxyValue(value: string): string {
  const at = value.lastIndexOf('@');
  return at === -1 ? value : `***${value.slice(at)}`;
}

/**
 * The proxy in effect, for `chainvisor config`: one line each for https and http URLs and one for
 * NO_PROXY, credentials never shown.
 */
export function describeProxies(settings: ProxySettings): string[] {
  const line = (label: string, choice: ProxyChoice | undefined): string => {
    if (choice === undefined) return `${label}direct (no ${label.startsWith('https') ? 'HTTPS_PROXY' : 'HTTP_PROXY'})`;
    if (choice.url === undefined) return `${label}unusable value in ${choice.variable.name}: ${choice.problem ?? ''}`;
    return `${label}${shownProxy(choice.url)} [env ${choice.variable.name}]`;
  };
  const bypass =
    settings.noProxy === undefined
      ? 'localhost and loopback addresses'
      : `localhost, loopback addresses, ${settings.noProxy.value} [env ${settings.noProxy.name}]`;
  return [
    line('proxy for https      ', settings.https),
    line('proxy for http       ', settings.http),
    `no proxy for         ${settings.noneProxied ? `every host [env ${settings.noProxy?.name ?? 'NO_PROXY'}=*]` : bypass}`,
  ];
}
