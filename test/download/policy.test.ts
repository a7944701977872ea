/**
 * The scheme policy of a download's URL: https anywhere, http to loopback only, file:// when allowed;
 * for a proposal's binary (`publicOnly`), https to public hosts only, on the first URL and every redirect.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { checkUrlAllowed, createFetcher, isLoopbackHost, isPublicHost, parseSource } from '../../src/download/index.js';
import { fastBackoff, memoryLogger, tempDir } from '../support/download-kit.js';
import { startFaultServer } from '../support/fault-server.js';
import { startProxyServer } from '../support/proxy-server.js';
import { testCa } from '../support/tls.js';

test('loopback addresses', () => {
  for (const host of ['localhost', 'LOCALHOST', 'a.localhost', '127.0.0.1', '127.10.0.3', '[::1]', '[::ffff:7f00:1]']) assert.ok(isLoopbackHost(host), host);
  for (const host of ['example.com', '10.0.0.1', '128.0.0.1', '[::2]', '127.0.0.1.nip.io', '[::ffff:a00:1]']) assert.ok(!isLoopbackHost(host), host);
});

test('the policy: https anywhere, http only to loopback unless allowed, file:// only when allowed', () => {
  const strict = { allowInsecureHttp: false, allowFileUrls: false };
  checkUrlAllowed(new URL('https://example.com/x'), strict);
  checkUrlAllowed(new URL('http://127.0.0.1:8080/x'), strict);
  assert.throws(() => checkUrlAllowed(new URL('http://example.com/x'), strict), { code: 'CHAINVISOR_URL_REFUSED', hint: /CHAINVISOR_ALLOW_INSECURE_HTTP/ });
  checkUrlAllowed(new URL('http://example.com/x'), { ...strict, allowInsecureHttp: true });
  assert.throws(() => checkUrlAllowed(new URL('file:///tmp/x'), strict), { code: 'CHAINVISOR_URL_REFUSED', hint: /CHAINVISOR_ALLOW_FILE_URLS/ });
  checkUrlAllowed(new URL('file:///tmp/x'), { ...strict, allowFileUrls: true });
  assert.throws(() => checkUrlAllowed(new URL('ftp://example.com/x'), { allowInsecureHttp: true, allowFileUrls: true }), { code: 'CHAINVISOR_URL_REFUSED' });
});

const publicOnly = { allowInsecureHttp: true, allowFileUrls: true, publicOnly: true };
const refusedAsPrivate = { code: 'CHAINVISOR_URL_REFUSED', message: /a proposal's binary is fetched only from public https hosts/ };

test('publicOnly: IPv4 literals in loopback, private, link-local, CGNAT and unspecified ranges are refused', () => {
  for (const host of [
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.255',
    '0.0.0.0',
    '0x7f.1',
    '2130706433',
  ])
    assert.throws(() => checkUrlAllowed(new URL(`https://${host}/simd`), publicOnly), refusedAsPrivate, host);
  for (const host of ['8.8.8.8', '172.32.0.1', '172.15.255.255', '100.128.0.1', '100.63.255.255', '192.169.0.1', '11.0.0.1'])
    checkUrlAllowed(new URL(`https://${host}/simd`), publicOnly);
});

test('publicOnly: IPv6 literals in brackets, IPv4-mapped ones as their IPv4', () => {
  for (const host of [
    '[::1]',
    '[::]',
    '[fc00::1]',
    '[fd12:3456::1]',
    '[fe80::1]',
    '[febf::1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:169.254.169.254]',
    '[::ffff:10.0.0.1]',
  ])
    assert.throws(() => checkUrlAllowed(new URL(`https://${host}/simd`), publicOnly), refusedAsPrivate, host);
  for (const host of ['[2001:db8::1]', '[2606:4700::1111]', '[fec0::1]', '[::ffff:8.8.8.8]']) checkUrlAllowed(new URL(`https://${host}/simd`), publicOnly);
});

test('publicOnly: localhost names refused, public names allowed, only https whatever the other settings say', () => {
  for (const host of ['localhost', 'LOCALHOST', 'localhost.', 'downloads.localhost']) assert.ok(!isPublicHost(host), host);
  assert.ok(isPublicHost('github.com'));
  assert.ok(isPublicHost('localhost.example.com'), 'a name is judged by its spelling only');
  assert.throws(() => checkUrlAllowed(new URL('https://localhost:8443/simd'), publicOnly), refusedAsPrivate);
  assert.throws(() => checkUrlAllowed(new URL('https://a.localhost/simd'), publicOnly), refusedAsPrivate);
  checkUrlAllowed(new URL('https://github.com/org/repo/releases/download/v2/simd'), publicOnly);
  assert.throws(() => checkUrlAllowed(new URL('http://example.com/simd'), publicOnly), { code: 'CHAINVISOR_URL_REFUSED', message: /http is not https/ });
  assert.throws(() => checkUrlAllowed(new URL('http://127.0.0.1/simd'), publicOnly), refusedAsPrivate);
  assert.throws(() => checkUrlAllowed(new URL('file:///tmp/simd'), publicOnly), refusedAsPrivate);
  // Without publicOnly nothing changes.
  checkUrlAllowed(new URL('https://10.0.0.1/simd'), { allowInsecureHttp: false, allowFileUrls: false });
});

test('publicOnly: a redirect to the cloud metadata address is refused before it is asked', async (t) => {
  // The release host's name resolves only at the proxy (to a local server): the first URL is a public name.
  const releaseHost = 'releases.example.test';
  const s = await startFaultServer({ tls: true, name: releaseHost });
  t.after(() => s.close());
  const p = await startProxyServer({ hosts: { [releaseHost]: '127.0.0.1' } });
  t.after(() => p.close());
  s.route('/simd', { always: { kind: 'redirect', to: 'https://169.254.169.254/latest/meta-data/' } });
  s.route('/mapped', { always: { kind: 'redirect', to: 'https://[::ffff:a9fe:a9fe]/latest/meta-data/' } });
  const log = memoryLogger();
  const fetcher = createFetcher({
    timeoutMs: 2000,
    retries: 0,
    maxBytes: 1 << 20,
    policy: { allowInsecureHttp: false, allowFileUrls: false, publicOnly: true },
    logger: log.logger,
    tls: { ca: testCa },
    env: { HTTPS_PROXY: p.url },
    ...fastBackoff,
  });
  t.after(() => fetcher.close());
  const file = path.join(await tempDir(t), 'download');
  const fetch = (url: string) =>
    fetcher.fetchToFile({ source: parseSource(url, { mustHaveChecksum: false, what: 'linux/amd64 binary' }), file, what: 'linux/amd64 binary' });
  await assert.rejects(fetch(s.url('/simd')), { code: 'CHAINVISOR_URL_REFUSED', message: /169\.254\.169\.254 .*public https hosts/ });
  await assert.rejects(fetch(s.url('/mapped')), refusedAsPrivate);
  assert.deepEqual(
    s.requests.map((r) => r.path),
    ['/simd', '/mapped'],
    'the release host was asked',
  );
  // A tunnel may serve both fetches: what matters is that no other host was ever asked for.
  const targets = p.requests.map((r) => r.target);
  assert.ok(
    targets.length > 0 && targets.every((target) => target === new URL(s.origin).host),
    `nothing but the release host was asked for: ${targets.join(', ')}`,
  );
});
