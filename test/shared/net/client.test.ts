/**
 * What the HTTP client itself does with the proxy the environment names (issue #31): a SOCKS5 proxy
 * with and without a login (offered, and refused with its own error), the time limits through it, no
 * word from Node about SOCKS5 being experimental, an https proxy's certificate blamed on the proxy,
 * and a proxy variable that cannot be used failing the request instead of being skipped. And how long
 * an idle connection is kept for the next request (the network RPC's readings, issue #32).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { CertificateError, createHttpClient, type HttpClient, type ProxyAuthError, ProxyUnusableError } from '../../../src/shared/net/index.js';
import { type FaultServer, startFaultServer } from '../../support/fault-server.js';
import { startProxyServer } from '../../support/proxy-server.js';
import { type Socks5Server, startSocks5Server } from '../../support/socks5-server.js';
import { testCa } from '../../support/tls.js';

const hosts = { 'releases.example.test': '127.0.0.1' };

async function release(t: TestContext): Promise<FaultServer> {
  const s = await startFaultServer({ tls: true, name: 'releases.example.test' });
  t.after(() => s.close());
  s.route('/simd', { body: 'the binary' });
  s.route('/stall', { body: 'x'.repeat(1000), always: { kind: 'stall', afterBytes: 10 } });
  return s;
}

async function socks(t: TestContext, credentials?: string): Promise<Socks5Server> {
  const s = await startSocks5Server({ hosts, ...(credentials === undefined ? {} : { credentials }) });
  t.after(() => s.close());
  return s;
}

function client(t: TestContext, env: Record<string, string>, timeoutMs = 2000): HttpClient {
  const c = createHttpClient({ timeoutMs, env, extraCa: testCa });
  t.after(() => c.close());
  return c;
}

async function get(c: HttpClient, url: string): Promise<string> {
  const response = await c.request(new URL(url), { headers: {} });
  let text = '';
  for await (const chunk of response.body) text += String(chunk);
  return text;
}

test('through a SOCKS5 proxy the body timeout holds, and Node says nothing about SOCKS5 being experimental', { timeout: 30_000 }, async (t) => {
  // First in this file: Node warns once per process, at the first SOCKS5 agent.
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.message);
  process.on('warning', onWarning);
  t.after(() => process.off('warning', onWarning));
  const s = await release(t);
  const open = await socks(t);
  // undici's own default is 300 s, which a SOCKS5 proxy's pools kept.
  await assert.rejects(get(client(t, { HTTPS_PROXY: open.url }, 300), s.url('/stall')), { code: 'UND_ERR_BODY_TIMEOUT' });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(
    warnings.filter((w) => /SOCKS5/.test(w)),
    [],
  );
});

test('a SOCKS5 proxy: without a login, and with one (offered, sent decoded), the name resolved by the proxy', async (t) => {
  const s = await release(t);
  const open = await socks(t);
  assert.equal(await get(client(t, { HTTPS_PROXY: open.url }), s.url('/simd')), 'the binary');
  assert.deepEqual(open.offered, [[0x00]]);

  const locked = await socks(t, 'ops:p@ss:word');
  const url = locked.url.replace('//', `//ops:${encodeURIComponent('p@ss:word')}@`);
  assert.equal(await get(client(t, { HTTPS_PROXY: url }), s.url('/simd')), 'the binary');
  assert.deepEqual(locked.offered, [[0x02, 0x00]], 'the login is offered');
  assert.deepEqual(locked.logins, ['ops:p@ss:word']);
  assert.deepEqual(locked.targets, [`releases.example.test:${new URL(s.origin).port}`]);
});

test('a SOCKS5 proxy that wants a login: missing or refused, each its own ProxyAuthError, never showing the password', async (t) => {
  const s = await release(t);
  const locked = await socks(t, 'ops:right');
  await assert.rejects(get(client(t, { HTTPS_PROXY: locked.url }), s.url('/simd')), (error: ProxyAuthError) => {
    assert.equal(error.code, 'CHAINVISOR_PROXY_AUTH_REQUIRED');
    assert.match(
      error.message,
      /^the proxy socks5:\/\/127\.0\.0\.1:\d+ \(HTTPS_PROXY\) refused to go on without a login for .*: it needs credentials and none were given$/,
    );
    assert.match(error.hint ?? '', /socks5:\/\/user:password@host:port/);
    return true;
  });
  await assert.rejects(get(client(t, { HTTPS_PROXY: locked.url.replace('//', '//ops:wrongpass@') }), s.url('/simd')), (error: ProxyAuthError) => {
    assert.match(error.message, /^the proxy socks5:\/\/\*\*\*@127\.0\.0\.1:\d+ \(HTTPS_PROXY\) refused the SOCKS5 login .*: it refused the credentials given$/);
    assert.doesNotMatch(`${error.message} ${error.hint ?? ''}`, /wrongpass/);
    return true;
  });
});

test('an https proxy whose own certificate does not verify is named, not the server it was asked for', async (t) => {
  const s = await release(t);
  const secureProxy = await startProxyServer({ hosts, tls: true });
  t.after(() => secureProxy.close());
  const untrusting = createHttpClient({ timeoutMs: 2000, env: { HTTPS_PROXY: secureProxy.url } });
  t.after(() => untrusting.close());
  await assert.rejects(get(untrusting, s.url('/simd')), (error: CertificateError) => {
    assert.ok(error instanceof CertificateError);
    assert.match(error.host, /^127\.0\.0\.1:\d+$/);
    assert.match(error.proxy ?? '', /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(error.variable, 'HTTPS_PROXY');
    return true;
  });
  assert.equal(s.requests.length, 0);
  assert.equal(await get(client(t, { HTTPS_PROXY: secureProxy.url }), s.url('/simd')), 'the binary', 'trusted, it works');
});

test('a proxy variable that cannot be used fails the request, which never goes direct', async (t) => {
  const s = await startFaultServer({ tls: true });
  t.after(() => s.close());
  s.route('/simd', { body: 'the binary' });
  const c = client(t, { HTTPS_PROXY: 'http://ops:100%zz@proxy.corp.example:3128', NO_PROXY: 'elsewhere.example' });
  await assert.rejects(get(c, 'https://releases.example.test/simd'), (error: ProxyUnusableError) => {
    assert.ok(error instanceof ProxyUnusableError);
    assert.equal(error.variable, 'HTTPS_PROXY');
    assert.doesNotMatch(error.message, /100%zz/);
    return true;
  });
  assert.equal(await get(c, s.url('/simd')), 'the binary', 'loopback is never proxied: the variable does not matter');
});

test('keepAliveMs: an idle connection is kept that long for the next request, where the server names no limit', async (t) => {
  // Node's server sends no Keep-Alive limit and closes no idle connection when its keepAliveTimeout is 0
  // (as Go's, which says nothing): the client's own setting decides.
  const connections: number[] = [];
  const server = http.createServer((req, res) => res.end('ok'));
  server.keepAliveTimeout = 0;
  server.on('connection', (socket) => connections.push(socket.remotePort ?? 0));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const twoRequests = async (keepAliveMs: number): Promise<number> => {
    const c = createHttpClient({ timeoutMs: 2000, env: {}, keepAliveMs });
    const before = connections.length;
    assert.equal(await get(c, url), 'ok');
    await sleep(600);
    assert.equal(await get(c, url), 'ok');
    await c.close();
    return connections.length - before;
  };
  assert.equal(await twoRequests(5000), 1, 'kept for 5 s: the second request goes on the first connection');
  assert.equal(await twoRequests(200), 2, 'kept for 200 ms: the second request, 600 ms later, opens another');
});
