/**
 * The one classification of network failures (issue #31), on the errors real exchanges raise: local
 * servers, proxies and a SOCKS5 proxy that fail the way the campaign's did. Each failure is `retry`
 * (the network's doing), `final` (asking again cannot help) or `config` (the operator's setting), in
 * words; anything else is a bug (undefined).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';

import { classifyFailure, createHttpClient, type Failure } from '../../../src/shared/net/index.js';
import { type FaultServer, startFaultServer } from '../../support/fault-server.js';
import { startProxyServer } from '../../support/proxy-server.js';
import { startSocks5Server } from '../../support/socks5-server.js';
import { testCa } from '../../support/tls.js';

const hosts = { 'releases.example.test': '127.0.0.1' };

async function server(t: TestContext, tls = true): Promise<FaultServer> {
  const s = await startFaultServer({ tls, name: 'releases.example.test' });
  t.after(() => s.close());
  s.route('/simd', { body: 'the binary' });
  return s;
}

/** The failure of one GET of `url` (its body read to the end), as the classification sees it. */
async function failureOf(t: TestContext, url: string, env: Record<string, string> = {}, trust = true): Promise<Failure | undefined> {
  const client = createHttpClient({ timeoutMs: 2000, env, ...(trust ? { extraCa: testCa } : {}) });
  t.after(() => client.close());
  try {
    const response = await client.request(new URL(url), { headers: {} });
    for await (const chunk of response.body) void chunk;
  } catch (error) {
    const failure = classifyFailure(error);
    assert.ok(failure !== undefined, `a bug? ${String(error)}`);
    return failure;
  }
  assert.fail('the request succeeded');
}

test('https sent to a plain-http port, and a proxy that garbles the tunnel: retried, in words, not a bug', async (t) => {
  const plain = await server(t, false);
  const direct = await failureOf(t, plain.url('/simd').replace('http://releases.example.test', 'https://127.0.0.1'));
  assert.equal(direct?.kind, 'retry');
  assert.match(direct?.reason ?? '', /TLS handshake failed: what answered does not speak TLS .*ERR_SSL_WRONG_VERSION_NUMBER: wrong version number/);
  const tls = await server(t);
  const garbling = await startProxyServer({ hosts, garbleTunnel: true });
  t.after(() => garbling.close());
  const tunnelled = await failureOf(t, tls.url('/simd'), { HTTPS_PROXY: garbling.url });
  assert.equal(tunnelled?.kind, 'retry');
  assert.match(tunnelled?.reason ?? '', /ERR_SSL_WRONG_VERSION_NUMBER/);
});

test('a response head of 100 KB, an answer that is not HTTP, a body cut short, a refused port: retried', async (t) => {
  const s = await server(t, false);
  s.route('/big-head', { body: 'x', always: { kind: 'big-head', bytes: 100 * 1024 } });
  s.route('/garbage', { body: 'x', always: { kind: 'garbage' } });
  s.route('/short', { body: 'x'.repeat(1000), always: { kind: 'wrong-length', contentLength: 5000 } });
  const local = (path: string) => s.url(path).replace('releases.example.test', '127.0.0.1');
  const big = await failureOf(t, local('/big-head'));
  assert.deepEqual(big, { kind: 'retry', reason: 'the response head is larger than 16 KiB, more than an HTTP server sends (UND_ERR_HEADERS_OVERFLOW)' });
  assert.equal((await failureOf(t, local('/garbage')))?.kind, 'retry');
  assert.deepEqual(await failureOf(t, local('/short')), { kind: 'retry', reason: 'the connection closed before the body reached its Content-Length' });
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const refused = await failureOf(t, `http://127.0.0.1:${port}/simd`);
  assert.equal(refused?.kind, 'retry');
  assert.match(refused?.reason ?? '', /^ECONNREFUSED: /);
});

test("certificates: the server's is final, an https proxy's own is the operator's and names the proxy", async (t) => {
  const tls = await server(t);
  const untrusted = await failureOf(t, tls.url('/simd').replace('releases.example.test', '127.0.0.1'), {}, false);
  assert.equal(untrusted?.kind, 'final');
  assert.match(untrusted?.reason ?? '', /^the TLS certificate of 127\.0\.0\.1:\d+ does not verify/);
  const secureProxy = await startProxyServer({ hosts, tls: true });
  t.after(() => secureProxy.close());
  for (const [variable, url] of [
    ['HTTPS_PROXY', tls.url('/simd')],
    ['HTTP_PROXY', (await server(t, false)).url('/simd')],
  ] as const) {
    const ofProxy = await failureOf(t, url, { [variable]: secureProxy.url }, false);
    assert.equal(ofProxy?.kind, 'config', variable);
    assert.match(ofProxy?.reason ?? '', new RegExp(`^the TLS certificate of the proxy https://127\\.0\\.0\\.1:\\d+ \\(${variable}\\) does not verify`));
  }
});

test("proxies: 407 and a refused SOCKS5 login are the operator's, 403 is final, 502 and an unreachable host are retried", async (t) => {
  const tls = await server(t);
  const locked = await startProxyServer({ hosts, credentials: 'ops:right' });
  const refusing = await startProxyServer({ hosts, connectStatus: 403 });
  const failing = await startProxyServer({ hosts, connectStatus: 502 });
  const socks = await startSocks5Server({ hosts, credentials: 'ops:right' });
  t.after(() => Promise.all([locked.close(), refusing.close(), failing.close(), socks.close()]));
  assert.equal((await failureOf(t, tls.url('/simd'), { HTTPS_PROXY: locked.url }))?.kind, 'config');
  assert.equal((await failureOf(t, tls.url('/simd'), { HTTPS_PROXY: refusing.url }))?.kind, 'final');
  assert.equal((await failureOf(t, tls.url('/simd'), { HTTPS_PROXY: failing.url }))?.kind, 'retry');
  const wrongLogin = await failureOf(t, tls.url('/simd'), { HTTPS_PROXY: socks.url.replace('//', '//ops:wrong@') });
  assert.equal(wrongLogin?.kind, 'config');
  assert.match(wrongLogin?.reason ?? '', /refused the SOCKS5 login .*: it refused the credentials given/);
  assert.doesNotMatch(wrongLogin?.reason ?? '', /wrong/);
  const unknown = await failureOf(t, 'https://unknown.example.test/simd', { HTTPS_PROXY: socks.url.replace('//', '//ops:right@') });
  assert.deepEqual(unknown, { kind: 'retry', reason: 'the SOCKS5 proxy could not connect: the host is unreachable from the proxy (reply 4)' });
});

test("a proxy variable that cannot be used, and a socks5:// proxy that is not one: the operator's, never a direct request", async (t) => {
  const tls = await server(t);
  const unusable = await failureOf(t, tls.url('/simd'), { HTTPS_PROXY: 'http://ops:100%zz@proxy.corp.example:3128' });
  assert.equal(unusable?.kind, 'config');
  assert.match(unusable?.reason ?? '', /^HTTPS_PROXY cannot be used: the user or password in the URL has a % that does not start an escape/);
  const httpProxy = await startProxyServer({ hosts });
  t.after(() => httpProxy.close());
  const notSocks = await failureOf(t, tls.url('/simd'), { HTTPS_PROXY: httpProxy.url.replace('http:', 'socks5:') });
  assert.equal(notSocks?.kind, 'config');
  assert.match(notSocks?.reason ?? '', /does not answer as a SOCKS5 proxy .*check the scheme in HTTPS_PROXY/);
});

test('what is not a failure of the network is a bug', () => {
  assert.equal(classifyFailure(new TypeError("Cannot read properties of undefined (reading 'x')")), undefined);
  assert.equal(classifyFailure('a string'), undefined);
  assert.equal(classifyFailure(Object.assign(new Error('invalid'), { code: 'UND_ERR_INVALID_ARG' })), undefined);
});
