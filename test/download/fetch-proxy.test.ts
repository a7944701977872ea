/**
 * The download through a company's proxy, as on a validator whose only way out is HTTPS_PROXY: the
 * release host's name (releases.example.test) resolves only at the proxy, so every passing download
 * here went through it. Each property of the direct download holds through the proxy too: the three
 * time limits, the retries, resume with Range, the deadline, the byte limit, and the redirect policy
 * on every hop; plus what is the proxy's own: both spellings of the variables, NO_PROXY, the loopback
 * bypass, 407, and credentials that never reach a message.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { createFetcher, type FetcherOptions, parseSource } from '../../src/download/index.js';
import { fastBackoff, memoryLogger, sha256, tempDir } from '../support/download-kit.js';
import { type FaultServer, startFaultServer } from '../support/fault-server.js';
import { type ProxyServer, type ProxyServerOptions, startProxyServer } from '../support/proxy-server.js';
import { testCa } from '../support/tls.js';

const body = randomBytes(256 * 1024);
const releaseHost = 'releases.example.test';
const mirrorHost = 'mirror.example.test';
const hosts = { [releaseHost]: '127.0.0.1', [mirrorHost]: '127.0.0.1' };

async function release(t: TestContext, options: { tls?: boolean; name?: string } = {}): Promise<FaultServer> {
  const s = await startFaultServer({ tls: options.tls ?? true, name: options.name ?? releaseHost });
  t.after(() => s.close());
  return s;
}

async function proxy(t: TestContext, options: Partial<ProxyServerOptions> = {}): Promise<ProxyServer> {
  const p = await startProxyServer({ hosts, ...options });
  t.after(() => p.close());
  return p;
}

async function setup(t: TestContext, env: Record<string, string>, overrides: Partial<FetcherOptions> = {}) {
  const dir = await tempDir(t);
  const log = memoryLogger();
  const fetcher = createFetcher({
    timeoutMs: 2000,
    retries: 3,
    maxBytes: 64 << 20,
    policy: { allowInsecureHttp: false, allowFileUrls: false },
    logger: log.logger,
    tls: { ca: testCa },
    env,
    ...fastBackoff,
    ...overrides,
  });
  t.after(() => fetcher.close());
  const file = path.join(dir, 'download');
  const fetch = (url: string) =>
    fetcher.fetchToFile({ source: parseSource(url, { mustHaveChecksum: false, what: 'linux/amd64 binary' }), file, what: 'linux/amd64 binary' });
  return { file, log, fetch };
}

const connects = (p: ProxyServer) => p.requests.filter((r) => r.method === 'CONNECT');

test('an https download goes through HTTPS_PROXY in a CONNECT tunnel; the name resolves only there', async (t) => {
  const s = await release(t);
  s.route('/simd', { body });
  const p = await proxy(t);
  const { file, fetch } = await setup(t, { HTTPS_PROXY: p.url });
  const result = await fetch(s.url('/simd'));
  assert.equal(result.checksum.hex, sha256(body));
  assert.deepEqual(await fs.readFile(file), body);
  assert.equal(connects(p)[0]?.target, new URL(s.origin).host);

  // The same URL without the proxy: the name does not resolve here.
  const direct = await setup(t, {}, { retries: 0 });
  await assert.rejects(direct.fetch(s.url('/simd')), { code: 'CHAINVISOR_DOWNLOAD_FAILED', message: /ENOTFOUND|EAI_AGAIN/ });
});

test('the lower-case spellings work; the upper-case name wins when both are set', async (t) => {
  const s = await release(t);
  s.route('/simd', { body });
  const good = await proxy(t);
  const lower = await setup(t, { https_proxy: good.url });
  assert.equal((await lower.fetch(s.url('/simd'))).checksum.hex, sha256(body));
  assert.equal(connects(good).length, 1);

  const dead = await proxy(t, { connectStatus: 503 });
  const both = await setup(t, { HTTPS_PROXY: good.hostPort, https_proxy: dead.url });
  await both.fetch(s.url('/simd'));
  assert.equal(connects(good).length, 2, 'HTTPS_PROXY (written without a scheme) was used');
  assert.equal(dead.requests.length, 0, 'https_proxy was not');
});

test('an http URL goes through HTTP_PROXY (or http_proxy) as an absolute-form request, not a tunnel', async (t) => {
  const s = await release(t, { tls: false });
  s.route('/simd', { body });
  for (const variable of ['HTTP_PROXY', 'http_proxy']) {
    const p = await proxy(t);
    const { fetch } = await setup(t, { [variable]: p.url }, { policy: { allowInsecureHttp: true, allowFileUrls: false } });
    assert.equal((await fetch(s.url('/simd'))).checksum.hex, sha256(body), variable);
    assert.deepEqual(
      p.requests.map((r) => [r.method, r.target]),
      [['GET', s.url('/simd')]],
      variable,
    );
  }
});

test('the URL policy judges the target, not the proxy: plain http to a remote host through a loopback proxy is refused', async (t) => {
  const s = await release(t, { tls: false });
  s.route('/simd', { body });
  const p = await proxy(t);
  const { fetch } = await setup(t, { HTTP_PROXY: p.url });
  await assert.rejects(fetch(s.url('/simd')), { code: 'CHAINVISOR_URL_REFUSED', message: /plain http/ });
  assert.equal(p.requests.length, 0);
});

test('NO_PROXY and no_proxy send matching hosts direct; localhost and loopback are never proxied', async (t) => {
  const s = await release(t);
  s.route('/simd', { body });
  const p = await proxy(t);
  for (const [name, value] of [
    ['NO_PROXY', releaseHost],
    ['no_proxy', '.example.test'],
    ['NO_PROXY', `${releaseHost}:${new URL(s.origin).port}`],
    ['NO_PROXY', '*'],
  ] as const) {
    const { fetch } = await setup(t, { HTTPS_PROXY: p.url, [name]: value }, { retries: 0 });
    await assert.rejects(fetch(s.url('/simd')), { message: /ENOTFOUND|EAI_AGAIN/ }, `${name}=${value}: went direct, where the name does not resolve`);
  }
  assert.equal(p.requests.length, 0);

  // A loopback server with a proxy that would refuse everything: reached directly.
  const local = await release(t, { name: '127.0.0.1' });
  local.route('/simd', { body });
  const refusing = await proxy(t, { connectStatus: 403 });
  const { fetch } = await setup(t, { HTTPS_PROXY: refusing.url });
  assert.equal((await fetch(local.url('/simd'))).checksum.hex, sha256(body));
  assert.equal((await fetch(local.url('/simd').replace('127.0.0.1', 'localhost'))).checksum.hex, sha256(body));
  assert.equal(refusing.requests.length, 0);
});

test('credentials in the proxy URL are sent as Proxy-Authorization: Basic and never logged', async (t) => {
  const s = await release(t);
  s.route('/simd', { body, faults: [{ kind: 'drop', afterBytes: 1000 }] });
  const p = await proxy(t, { credentials: 'alice:s3cr@t' });
  const { fetch, log } = await setup(t, { HTTPS_PROXY: p.url.replace('http://', 'http://alice:s3cr%40t@') });
  await fetch(s.url('/simd'));
  assert.equal(connects(p)[0]?.proxyAuthorization, `Basic ${Buffer.from('alice:s3cr@t').toString('base64')}`);
  assert.doesNotMatch(log.text(), /alice|s3cr/);
  assert.match(log.text(), /"proxy":"http:\/\/\*\*\*@127\.0\.0\.1:\d+"/);
});

test('407: its own code and hint, not retried, and the credentials never in the message', async (t) => {
  const s = await release(t);
  s.route('/simd', { body });
  const p = await proxy(t, { credentials: 'alice:right' });
  const none = await setup(t, { HTTPS_PROXY: p.url });
  await assert.rejects(none.fetch(s.url('/simd')), (error: Error & { code?: string; hint?: string }) => {
    assert.equal(error.code, 'CHAINVISOR_PROXY_AUTH_REQUIRED');
    assert.match(error.message, /answered 407 Proxy Authentication Required .*needs credentials and none were given/);
    assert.match(error.hint ?? '', /put the proxy's user and password in HTTPS_PROXY/);
    return true;
  });
  assert.equal(p.requests.length, 1, 'not retried');

  const wrong = await setup(t, { HTTPS_PROXY: p.url.replace('http://', 'http://alice:wrong-hunter2@') });
  await assert.rejects(wrong.fetch(s.url('/simd')), (error: Error & { code?: string; hint?: string }) => {
    assert.equal(error.code, 'CHAINVISOR_PROXY_AUTH_REQUIRED');
    assert.match(error.message, /refused the credentials given/);
    assert.doesNotMatch(`${error.message} ${error.hint}`, /hunter2|alice/);
    return true;
  });
  assert.doesNotMatch(wrong.log.text(), /hunter2|alice/);

  // The same for an http URL, where the proxy answers the request itself.
  const plain = await release(t, { tls: false });
  plain.route('/simd', { body });
  const forward = await setup(t, { HTTP_PROXY: p.url }, { policy: { allowInsecureHttp: true, allowFileUrls: false } });
  await assert.rejects(forward.fetch(plain.url('/simd')), { code: 'CHAINVISOR_PROXY_AUTH_REQUIRED' });
});

test('a proxy that refuses the host (403 to CONNECT) is named, not retried; a 502 is retried', async (t) => {
  const s = await release(t);
  s.route('/simd', { body });
  const refusing = await proxy(t, { connectStatus: 403 });
  const { fetch } = await setup(t, { HTTPS_PROXY: refusing.url });
  await assert.rejects(fetch(s.url('/simd')), (error: Error & { code?: string; hint?: string; attempts?: number }) => {
    assert.equal(error.code, 'CHAINVISOR_DOWNLOAD_FAILED');
    assert.equal(error.attempts, 1);
    assert.match(error.message, /the proxy http:\/\/127\.0\.0\.1:\d+ \(HTTPS_PROXY\) answered 403 when asked to connect to releases\.example\.test:\d+/);
    assert.match(error.hint ?? '', /NO_PROXY/);
    return true;
  });
  const failing = await proxy(t, { connectStatus: 502 });
  const retried = await setup(t, { HTTPS_PROXY: failing.url }, { retries: 2 });
  await assert.rejects(retried.fetch(s.url('/simd')), { code: 'CHAINVISOR_DOWNLOAD_FAILED', attempts: 3 });
  assert.equal(failing.requests.length, 3);
});

test('through the proxy: a 503 is retried and a dropped body resumed with Range', async (t) => {
  const s = await release(t);
  s.route('/simd', {
    body,
    etag: '"v2"',
    faults: [
      { kind: 'status', status: 503 },
      { kind: 'drop', afterBytes: 100_000 },
    ],
  });
  const p = await proxy(t);
  const { fetch, file } = await setup(t, { HTTPS_PROXY: p.url });
  const result = await fetch(s.url('/simd'));
  assert.equal(result.checksum.hex, sha256(body));
  assert.equal(result.attempts, 3);
  assert.equal(result.resumes, 1);
  assert.deepEqual(await fs.readFile(file), body);
  assert.match(s.requestsTo('/simd')[2]?.range ?? '', /^bytes=[1-9]\d*-$/);
  // Three requests over the tunnels (a tunnel is kept for the next request after a 503).
  assert.equal(s.requestsTo('/simd').length, 3);
  assert.ok(connects(p).length >= 2, 'a new tunnel after the dropped connection');
});

test('through the proxy: the three time limits', async (t) => {
  const p = await proxy(t);
  const s = await release(t);
  s.route('/stall', { body, always: { kind: 'stall', afterBytes: 1000 } });
  s.route('/head', { body, always: { kind: 'trickle-head', bytes: 1, everyMs: 100 } });
  const { fetch } = await setup(t, { HTTPS_PROXY: p.url }, { timeoutMs: 400, retries: 0 });
  await assert.rejects(fetch(s.url('/stall')), { message: /the body stalled \(no data for 400 ms/ });
  await assert.rejects(fetch(s.url('/head')), { message: /response head too slowly \(not complete within 400 ms/ });
  const head = s.requestsTo('/head');
  assert.equal(head.length, 1);
  assert.equal(head[0]?.trickled.whole, false, `the trickled head cut after ${head[0]?.trickled.sent} bytes, not at its end`);

  // A proxy that accepts the connection and never answers CONNECT: cut by the same limit.
  const stuck = await proxy(t, { silent: true });
  const quiet = await setup(t, { HTTPS_PROXY: stuck.url }, { timeoutMs: 400, retries: 1 });
  const began = Date.now();
  await assert.rejects(quiet.fetch(s.url('/stall')), { code: 'CHAINVISOR_DOWNLOAD_FAILED', attempts: 2, message: /within 400 ms|timed out/ });
  assert.ok(Date.now() - began < 3000, `a stuck proxy cut after ${Date.now() - began} ms`);
});

test('through the proxy: the deadline and the byte limit', async (t) => {
  const p = await proxy(t);
  const s = await release(t);
  s.route('/slow', { body, always: { kind: 'trickle', bytes: 1000, everyMs: 50 } });
  s.route('/big', { body, always: { kind: 'no-length' } });
  const { fetch } = await setup(t, { HTTPS_PROXY: p.url }, { deadlineMs: 600, maxBytes: 100_000 });
  await assert.rejects(fetch(s.url('/slow')), { code: 'CHAINVISOR_DOWNLOAD_DEADLINE' });
  await assert.rejects(fetch(s.url('/big')), { code: 'CHAINVISOR_DOWNLOAD_TOO_LARGE', message: /more than 100000 bytes arrived/ });
});

test('through the proxy: the redirect policy on every hop', async (t) => {
  const p = await proxy(t);
  const mirror = await release(t, { name: mirrorHost });
  mirror.route('/simd', { body });
  const plainMirror = await release(t, { name: mirrorHost, tls: false });
  plainMirror.route('/simd', { body });
  const s = await release(t);
  s.route('/to-mirror', { always: { kind: 'redirect', to: mirror.url('/simd') } });
  s.route('/to-http', { always: { kind: 'redirect', to: plainMirror.url('/simd') } });
  const { fetch } = await setup(t, { HTTPS_PROXY: p.url, HTTP_PROXY: p.url }, { policy: { allowInsecureHttp: true, allowFileUrls: false } });
  const url = s.url('/to-mirror').replace('https://', 'https://alice:s3cret@');
  assert.equal((await fetch(url)).checksum.hex, sha256(body));
  assert.deepEqual(
    connects(p).map((r) => r.target),
    [new URL(s.origin).host, new URL(mirror.origin).host],
    'both hops through the proxy',
  );
  assert.equal(mirror.requests[0]?.authorization, undefined, 'credentials not sent to the other origin');
  await assert.rejects(fetch(s.url('/to-http')), { code: 'CHAINVISOR_REDIRECT_REFUSED', message: /from https to http is never followed/ });
  assert.equal(plainMirror.requests.length, 0);
});
