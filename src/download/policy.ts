/**
 * Which URLs chainvisor fetches: https anywhere; plain http only to this machine (loopback) unless
 * CHAINVISOR_ALLOW_INSECURE_HTTP; file:// only with CHAINVISOR_ALLOW_FILE_URLS. Applied to the URL in
 * the Info and again to every redirect.
 */
import net from 'node:net';

import { redactUrl } from '../shared/redact.js';
import { UrlRefusedError } from './errors.js';

export interface UrlPolicy {
  /** CHAINVISOR_ALLOW_INSECURE_HTTP. */
  allowInsecureHttp: boolean;
  /** CHAINVISOR_ALLOW_FILE_URLS. */
  allowFileUrls: boolean;
}

export function checkUrlAllowed(url: URL, policy: UrlPolicy): void {
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
