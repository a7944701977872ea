/**
 * Which URLs chainvisor fetches: https anywhere; plain http only to this machine (loopback) unless
 * CHAINVISOR_ALLOW_INSECURE_HTTP; file:// only with CHAINVISOR_ALLOW_FILE_URLS. Applied to the URL in
 * the Info and again to every redirect. A proposal's binary, fetched while the vote runs from a URL
 * anyone with a deposit wrote, is held to `publicOnly`: https to a host that is no address of this
 * machine or its private networks. Names are not resolved: a public name that resolves to a private
 * address passes (the proxy or the firewall is the place for that).
 */
import net from 'node:net';

import { redactUrl } from '../shared/redact.js';
import { UrlRefusedError } from './errors.js';

export interface UrlPolicy {
  /** CHAINVISOR_ALLOW_INSECURE_HTTP. */
  allowInsecureHttp: boolean;
  /** CHAINVISOR_ALLOW_FILE_URLS. */
  allowFileUrls: boolean;
  /**
   * Only https to a public host: not localhost nor `*.localhost`, not an IP literal in a loopback,
   * private, link-local, CGNAT or unspecified range (a proposal's binary). Default false.
   */
  publicOnly?: boolean;
}

export function checkUrlAllowed(url: URL, policy: UrlPolicy): void {
  if (policy.publicOnly === true) checkPublic(url);
  switch (url.protocol) {
    case 'https:':
      return;
    case 'http:':
      if (policy.allowInsecureHttp || isLoopbackHost(url.hostname)) return;
      throw new UrlRefusedError(
        redactUrl(url),
        'plain http to a host other than this machine',
        'use an https URL; if the network between you and the server is trusted, set CHAINVISOR_ALLOW_INSECURE_HTTP=true',
      );
    case 'file:':
      if (policy.allowFileUrls) return;
      throw new UrlRefusedError(redactUrl(url), 'file:// URLs are disabled', 'set CHAINVISOR_ALLOW_FILE_URLS=true to install from a local file');
    default:
      throw new UrlRefusedError(
        redactUrl(url),
        `the ${url.protocol.replace(/:$/, '')} scheme is not supported`,
        'use an https URL (http to loopback and, when enabled, file:// are also accepted)',
      );
  }
}

const publicOnlyHint =
  "a proposal's URL is written by whoever proposed it: its binary is fetched once the proposal passes and its plan is scheduled, or install it with 'chainvisor add-upgrade'";

function checkPublic(url: URL): void {
  if (url.protocol !== 'https:')
    throw new UrlRefusedError(
      redactUrl(url),
      `${url.protocol.replace(/:$/, '')} is not https: a proposal's binary is fetched only from public https hosts`,
      publicOnlyHint,
    );
  if (!isPublicHost(url.hostname))
    throw new UrlRefusedError(
      redactUrl(url),
      `${url.hostname} is this machine or a private, link-local or reserved address: a proposal's binary is fetched only from public https hosts`,
      publicOnlyHint,
    );
}

/** The ranges no proposal's URL may name (IPv4-mapped IPv6 addresses are checked as their IPv4). */
const notPublic = new net.BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8], // unspecified, "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, where clouds answer with their metadata
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const)
  notPublic.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const)
  notPublic.addSubnet(address, prefix, 'ipv6');

/** A host name that is no name of this machine, or an IP literal outside the ranges above. Names are not resolved. */
export function isPublicHost(hostname: string): boolean {
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === '' || host === 'localhost' || host.endsWith('.localhost')) return false;
  if (net.isIPv4(host)) return !notPublic.check(host, 'ipv4');
  if (net.isIPv6(host)) return !notPublic.check(host, 'ipv6');
  return true;
}

/** localhost, 127.0.0.0/8, ::1 (and ::ffff:127.x.y.z). Names are not resolved: only these spellings. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (net.isIPv4(host)) return host.startsWith('127.');
  if (net.isIPv6(host)) {
    if (host === '::1') return true;
    const mapped = /^::ffff:(.+)$/.exec(host)?.[1];
    if (mapped === undefined) return false;
    if (net.isIPv4(mapped)) return mapped.startsWith('127.');
    // The URL parser writes ::ffff:127.0.0.1 as ::ffff:7f00:1.
    return /^7f[0-9a-f]{2}:/.test(mapped);
  }
  return false;
}
