/**
 * The HTTP client against a real local server with faults: retries, resume, timeouts, redirects,
 * size caps. Every test owns its server and temp folder.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { createFetcher, type FetcherOptions, parseSource } from '../../src/download/index.js';
import { fastBackoff, memoryLogger, sha256, tempDir, withChecksum } from '../support/download-kit.js';
import { type FaultServer, startFaultServer } from '../support/fault-server.js';
import { testCa } from '../support/tls.js';

const body = randomBytes(256 * 1024);

async function server(t: TestContext, options: { tls?: boolean } = {}): Promise<FaultServer> {
  const s = await startFaultServer(options);
  t.after(() => s.close());
  return s;
}

async function setup(t: TestContext, overrides: Partial<FetcherOptions> = {}) {
  const dir = await tempDir(t);
  const log = memoryLogger();
  const fetcher = createFetcher({
    timeoutMs: 2000,
    retries: 3,
    maxBytes: 64 << 20,
    policy: { allowInsecureHttp: false, allowFileUrls: false },
    logger: log.logger,
    tls: { ca: testCa },
    ...fastBackoff,
    ...overrides,
  });
  t.after(() => fetcher.close());
  const file = path.join(dir, 'download');
  const fetch = (url: string, extra: { signal?: AbortSignal } = {}) =>
    fetcher.fetchToFile({
      source: parseSource(url, { mustHaveChecksum: false, what: 'linux/amd64 binary' }),
      file,
      what: 'linux/amd64 binary',
      algo: 'sha256',
      ...extra,
    });
  return { dir, file, log, fetch };
}

test('downloads and hashes in one pass; the checksum parameter is not sent to the server', async (t) => {
  const s = await server(t);
  s.route('/simd', { body });
  const { file, fetch } = await setup(t);
  const result = await fetch(withChecksum(s.url('/simd?token=abc%20def'), body));
  assert.equal(result.bytes, body.length);
  assert.equal(result.checksum.hex, sha256(body));
  assert.equal(result.attempts, 1);
  assert.deepEqual(await fs.readFile(file), body);
  assert.equal(s.requests[0]?.query, 'token=abc%20def', 'other query parameters are kept byte for byte');
});

test('a connection dropped mid-body is resumed with Range; the hash covers the whole file', async (t) => {
  const s = await server(t);
  s.route('/simd', { body, etag: '"v2"', faults: [{ kind: 'drop', afterBytes: 100_000 }] });
  const { file, fetch, log } = await setup(t);
  const result = await fetch(s.url('/simd'));
  assert.equal(result.checksum.hex, sha256(body));
  assert.equal(result.resumes, 1);
  assert.equal(result.attempts, 2);
  assert.deepEqual(await fs.readFile(file), body);
  const second = s.requestsTo('/simd')[1];
  assert.match(second?.range ?? '', /^bytes=\d+-$/);
  assert.ok(Number(/\d+/.exec(second?.range ?? '')?.[0]) > 0, 'resumed past the start');
  assert.equal(second?.ifRange, '"v2"', 'If-Range guards against a changed file');
  assert.match(log.text(), /resuming the download/);
});

test('a server without Accept-Ranges: the retry starts from zero', async (t) => {
  const s = await server(t);
  s.route('/simd', { body, ranges: false, faults: [{ kind: 'drop', afterBytes: 100_000 }] });
  const { fetch } = await setup(t);
  const result = await fetch(s.url('/simd'));
  assert.equal(result.checksum.hex, sha256(body));
  assert.equal(result.resumes, 0);
  assert.equal(s.requestsTo('/simd')[1]?.range, undefined);
});

test('a server that answers a range request with 200: the file and the hash start over', async (t) => {
  const s = await server(t);
  s.route('/simd', { body, faults: [{ kind: 'drop', afterBytes: 100_000 }, { kind: 'ignore-range' }] });
  const { file, fetch } = await setup(t);
  const result = await fetch(s.url('/simd'));
  assert.ok(s.requestsTo('/simd')[1]?.range, 'a range was asked for');
  assert.equal(result.checksum.hex, sha256(body));
  assert.deepEqual(await fs.readFile(file), body);
});

test('500 then 200: retried', async (t) => {
  const s = await server(t);
  s.route('/simd', {
    body,
    faults: [
      { kind: 'status', status: 500 },
      { kind: 'status', status: 503 },
    ],
  });
  const { fetch, log } = await setup(t);
  const result = await fetch(s.url('/simd'));
  assert.equal(result.attempts, 3);
  assert.equal(result.checksum.hex, sha256(body));
  assert.equal(log.lines().filter((l) => l.msg === 'download attempt failed; retrying').length, 2);
});

test('429 with Retry-After and 408: retried', async (t) => {
  const s = await server(t);
  s.route('/simd', {
    body,
    faults: [
      { kind: 'status', status: 429, headers: { 'retry-after': '0' } },
      { kind: 'status', status: 408 },
    ],
  });
  const { fetch } = await setup(t);
  assert.equal((await fetch(s.url('/simd'))).attempts, 3);
});

test('404: not retried, a clear error', async (t) => {
  const s = await server(t);
  const { fetch } = await setup(t);
  await assert.rejects(fetch(s.url('/missing?sig=secret')), (error: Error & Record<string, unknown>) => {
    assert.equal(error.code, 'CHAINVISOR_DOWNLOAD_FAILED');
    assert.equal(error.status, 404);
    assert.equal(error.attempts, 1);
    assert.match(error.message, /HTTP 404/);
    assert.doesNotMatch(error.message, /secret/, 'the query string is redacted');
    assert.match(String(error.hint), /wrong or the file was removed/);
    assert.match(String(error.hint), /chainvisor add-upgrade <name> <path>/, 'the way out at the height: the binary by hand');
    return true;
  });
  assert.equal(s.requests.length, 1);
});

test('403: not retried', async (t) => {
  const s = await server(t);
  s.route('/simd', { always: { kind: 'status', status: 403 } });
  const { fetch } = await setup(t);
  await assert.rejects(fetch(s.url('/simd')), {
    code: 'CHAINVISOR_DOWNLOAD_FAILED',
    status: 403,
    attempts: 1,
    hint: /refuses access.*chainvisor add-upgrade <name> <path>/,
  });
});

test('5xx every time: gives up after CHAINVISOR_DOWNLOAD_RETRIES extra attempts', async (t) => {
  const s = await server(t);
  s.route('/simd', { always: { kind: 'status', status: 502 } });
  const { fetch } = await setup(t, { retries: 2 });
  await assert.rejects(fetch(s.url('/simd')), { code: 'CHAINVISOR_DOWNLOAD_FAILED', status: 502, attempts: 3 });
  assert.equal(s.requests.length, 3);
});

test('a stalled body times out (idle timeout) and is retried', async (t) => {
  const s = await server(t);
  s.route('/simd', { body, always: { kind: 'stall', afterBytes: 1000 } });
  const { fetch } = await setup(t, { timeoutMs: 250, retries: 1 });
  await assert.rejects(fetch(s.url('/simd')), { code: 'CHAINVISOR_DOWNLOAD_FAILED', message: /stalled/, attempts: 2 });
});

test('a server that never answers: the header timeout', async (t) => {
  const s = await server(t);
  s.route('/simd', { always: { kind: 'no-answer' } });
  const { fetch } = await setup(t, { timeoutMs: 250, retries: 0 });
  await assert.rejects(fetch(s.url('/simd')), {
    code: 'CHAINVISOR_DOWNLOAD_FAILED',
    message: /the server sent its response head too slowly \(not complete within 250 ms/,
  });
});

test('a response head that trickles is cut by CHAINVISOR_DOWNLOAD_TIMEOUT, not by the deadline, and retried', async (t) => {
  const s = await server(t);
  // About 400 bytes of status line and headers, one byte every 100 ms: 40 s to a complete head.
  s.route('/simd', { body, always: { kind: 'trickle-head', bytes: 1, everyMs: 100 } });
  const { fetch } = await setup(t, { timeoutMs: 500, retries: 1, deadlineMs: 60_000 });
  const url = s.url('/simd?sig=secret').replace('http://', 'http://user:hunter2@');
  const error = await fetch(url).then(
    () => assert.fail('the trickled head was accepted'),
    (e: unknown) => e as Error & { code: string; attempts: number },
  );
  assert.equal(error.code, 'CHAINVISOR_DOWNLOAD_FAILED');
  assert.equal(error.attempts, 2, 'retried like any timeout');
  assert.match(
    error.message,
    /from http:\/\/\*\*\*@127\.0\.0\.1:\d+\/simd\?… failed after 2 attempts: the server sent its response head too slowly \(not complete within 500 ms, CHAINVISOR_DOWNLOAD_TIMEOUT\)/,
  );
  assert.doesNotMatch(error.message, /hunter2|secret/);
  // Each attempt cut by its 500 ms, far from the 40 s the head takes: neither head was sent whole.
  assert.equal(s.requests.length, 2);
  for (const request of s.requests) assert.equal(request.trickled.whole, false, `cut after ${request.trickled.sent} bytes of the head`);
});

test('a response head that trickles over https is cut the same way', async (t) => {
  const s = await server(t, { tls: true });
  s.route('/simd', { body, always: { kind: 'trickle-head', bytes: 1, everyMs: 100 } });
  const { fetch } = await setup(t, { timeoutMs: 500, retries: 0 });
  await assert.rejects(fetch(s.url('/simd')), { code: 'CHAINVISOR_DOWNLOAD_FAILED', message: /response head too slowly/ });
  assert.equal(s.requests.length, 1);
  assert.equal(s.requests[0]?.trickled.whole, false, `cut after ${s.requests[0]?.trickled.sent} bytes of the head`);
});

test('nothing listening: connection refused, retried, then a clear error', async (t) => {
  const s = await startFaultServer();
  const url = s.url('/simd');
  await s.close();
  const { fetch } = await setup(t, { retries: 1 });
  await assert.rejects(fetch(url), { code: 'CHAINVISOR_DOWNLOAD_FAILED', attempts: 2, message: /ECONNREFUSED/ });
});

test('a redirect loop is refused at once and named as one', async (t) => {
  const s = await server(t);
  s.route('/a', { always: { kind: 'redirect', to: '/b' } });
  s.route('/b', { always: { kind: 'redirect', to: '/a' } });
  const { fetch } = await setup(t);
  await assert.rejects(fetch(s.url('/a')), { code: 'CHAINVISOR_REDIRECT_REFUSED', message: /redirect loop/ });
  assert.equal(s.requests.length, 2, 'not retried');
});

test('at most 5 redirects are followed', async (t) => {
  const s = await server(t);
  for (let i = 0; i < 6; i++) s.route(`/r${i}`, { always: { kind: 'redirect', to: `/r${i + 1}` } });
  s.route('/r6', { body });
  s.route('/ok5', { always: { kind: 'redirect', to: '/r2' } });
  const { fetch } = await setup(t);
  await assert.rejects(fetch(s.url('/r0')), { code: 'CHAINVISOR_REDIRECT_REFUSED', message: /more than 5 redirects/ });
  // /r1 → … → /r6 is exactly five hops.
  assert.equal((await fetch(s.url('/r1'))).bytes, body.length);
});

test('https to http redirects are refused', async (t) => {
  const plain = await server(t);
  plain.route('/simd', { body });
  const secure = await server(t, { tls: true });
  secure.route('/simd', { always: { kind: 'redirect', to: plain.url('/simd') } });
  const { fetch } = await setup(t);
  await assert.rejects(fetch(secure.url('/simd')), { code: 'CHAINVISOR_REDIRECT_REFUSED', message: /from https to http is never followed/ });
  assert.equal(plain.requests.length, 0);
});

test('https downloads (private CA for the test server)', async (t) => {
  const secure = await server(t, { tls: true });
  secure.route('/simd', { body });
  const { fetch } = await setup(t);
  assert.equal((await fetch(secure.url('/simd'))).checksum.hex, sha256(body));
});

test('an untrusted TLS certificate: not retried, the host and the problem named, the hint names SSL_CERT_FILE', async (t) => {
  const secure = await server(t, { tls: true });
  secure.route('/simd', { body });
  const { fetch } = await setup(t, { tls: {}, env: {} });
  const host = new URL(secure.origin).host;
  await assert.rejects(fetch(secure.url('/simd')), (error: Error & { attempts?: number; hint?: string; code?: string }) => {
    assert.equal(error.code, 'CHAINVISOR_DOWNLOAD_FAILED');
    assert.equal(error.attempts, 1);
    assert.ok(
      error.message.includes(`the TLS certificate of ${host} does not verify: it was issued by a certificate authority this host does not trust`),
      error.message,
    );
    assert.match(error.hint ?? '', /SSL_CERT_FILE/);
    assert.match(error.hint ?? '', /not retried/);
    assert.doesNotMatch(`${error.message} ${error.hint}`, /use-system-ca|Node\.js/, "Node's own advice is not an operator's");
    return true;
  });
  assert.equal(secure.requests.length, 0, 'nothing was sent over an unverified connection');
});

test('a Content-Length longer than the body: retried, then a clear error', async (t) => {
  const s = await server(t);
  s.route('/simd', { body, always: { kind: 'wrong-length', contentLength: body.length + 1000 } });
  const { fetch } = await setup(t, { retries: 1 });
  await assert.rejects(fetch(s.url('/simd')), { code: 'CHAINVISOR_DOWNLOAD_FAILED', attempts: 2 });
});

test('a Content-Length shorter than the file: only that much is read (the checksum then fails)', async (t) => {
  const s = await server(t);
  s.route('/simd', { body, always: { kind: 'wrong-length', contentLength: 1000 } });
  const { fetch } = await setup(t);
  const result = await fetch(s.url('/simd'));
  assert.equal(result.bytes, 1000);
  assert.notEqual(result.checksum.hex, sha256(body));
});

test('the size cap: an announced size over it is refused before reading, and not retried', async (t) => {
  const s = await server(t);
  s.route('/simd', { body });
  const { fetch } = await setup(t, { maxBytes: 1000 });
  await assert.rejects(fetch(s.url('/simd')), { code: 'CHAINVISOR_DOWNLOAD_TOO_LARGE', message: /announces 262144 bytes, over the limit of 1000 bytes/ });
  assert.equal(s.requests.length, 1);
});

test('the size cap: a body that grows past it is cut off', async (t) => {
  const s = await server(t);
  s.route('/simd', { body, always: { kind: 'no-length' } });
  const { fetch } = await setup(t, { maxBytes: 100_000 });
  await assert.rejects(fetch(s.url('/simd')), { code: 'CHAINVISOR_DOWNLOAD_TOO_LARGE', message: /more than 100000 bytes arrived/ });
  assert.equal(s.requests.length, 1);
});

test('credentials in the URL become Basic auth, are kept from other origins and from the logs', async (t) => {
  const other = await server(t);
  other.route('/simd', { body });
  const s = await server(t);
  s.route('/simd', { always: { kind: 'redirect', to: other.url('/simd') } });
  const { fetch, log } = await setup(t);
  const url = s.url('/simd').replace('http://', 'http://alice:s3cr%40t@');
  await fetch(url);
  assert.equal(s.requests[0]?.authorization, `Basic ${Buffer.from('alice:s3cr@t').toString('base64')}`);
  assert.equal(other.requests[0]?.authorization, undefined, 'not sent to another origin');
  assert.doesNotMatch(log.text(), /alice|s3cr/);
});

test('plain http to a non-loopback host is refused before connecting', async (t) => {
  const { fetch } = await setup(t);
  await assert.rejects(fetch('http://downloads.example.invalid/simd'), { code: 'CHAINVISOR_URL_REFUSED', message: /plain http/ });
});

test('file:// URLs only when CHAINVISOR_ALLOW_FILE_URLS is set', async (t) => {
  const { dir } = await setup(t);
  const local = path.join(dir, 'local-simd');
  await fs.writeFile(local, body);
  const url = `file://${local}`;
  const refused = await setup(t);
  await assert.rejects(refused.fetch(url), { code: 'CHAINVISOR_URL_REFUSED', message: /file:\/\/ URLs are disabled/ });
  const allowed = await setup(t, { policy: { allowInsecureHttp: false, allowFileUrls: true } });
  const result = await allowed.fetch(url);
  assert.equal(result.checksum.hex, createHash('sha256').update(body).digest('hex'));
});

test('the caller can cancel a download', async (t) => {
  const s = await server(t);
  s.route('/simd', { body, always: { kind: 'stall', afterBytes: 10 } });
  const { fetch } = await setup(t, { timeoutMs: 10_000 });
  const controller = new AbortController();
  const pending = fetch(s.url('/simd'), { signal: controller.signal });
  setImmediate(() => controller.abort(new Error('shutting down')));
  await assert.rejects(pending, { code: 'CHAINVISOR_DOWNLOAD_ABORTED' });
});

test('an answer that is not HTTP is retried like a network error', async (t) => {
  const s = await server(t);
  s.route('/simd', { body, faults: [{ kind: 'garbage' }, { kind: 'garbage' }] });
  const { fetch, log } = await setup(t);
  const result = await fetch(s.url('/simd'));
  assert.equal(result.attempts, 3);
  assert.equal(result.checksum.hex, sha256(body));
  assert.match(log.text(), /not valid HTTP \(/);
});

test('an answer that is never HTTP: a coded error after the retries, not a bug', async (t) => {
  const s = await server(t);
  s.route('/simd', { body, always: { kind: 'garbage' } });
  const { fetch } = await setup(t, { retries: 2 });
  await assert.rejects(fetch(s.url('/simd')), { code: 'CHAINVISOR_DOWNLOAD_FAILED', attempts: 3, message: /is not valid HTTP \(/ });
  assert.equal(s.requests.length, 3);
});

test('a redirect to another scheme (file://, ftp://) is refused, even with file URLs allowed', async (t) => {
  const s = await server(t);
  s.route('/to-file', { always: { kind: 'redirect', to: 'file:///etc/passwd' } });
  s.route('/to-ftp', { always: { kind: 'redirect', to: 'ftp://127.0.0.1/simd' } });
  const { fetch } = await setup(t, { policy: { allowInsecureHttp: false, allowFileUrls: true } });
  await assert.rejects(fetch(s.url('/to-file')), { code: 'CHAINVISOR_REDIRECT_REFUSED', message: /a redirect to file is never followed/ });
  await assert.rejects(fetch(s.url('/to-ftp')), { code: 'CHAINVISOR_REDIRECT_REFUSED', message: /a redirect to ftp is never followed/ });
  assert.equal(s.requests.length, 2, 'not retried');
});

test('CHAINVISOR_DOWNLOAD_DEADLINE: a trickling body ends with a coded error naming the URL and the bytes', async (t) => {
  const s = await server(t);
  s.route('/simd', { body, always: { kind: 'trickle', bytes: 16, everyMs: 20 } });
  const { fetch } = await setup(t, { deadlineMs: 500 });
  const url = s.url('/simd?sig=secret').replace('http://', 'http://user:hunter2@');
  const error = await fetch(url).then(
    () => assert.fail('the trickle finished within the deadline'),
    (e: unknown) => e as Error & { code: string; exitCode: number; bytes: number },
  );
  assert.equal(error.code, 'CHAINVISOR_DOWNLOAD_DEADLINE');
  assert.equal(error.exitCode, 79);
  assert.match(
    error.message,
    new RegExp(
      `from http://\\*\\*\\*@127\\.0\\.0\\.1:\\d+/simd\\?… did not finish within CHAINVISOR_DOWNLOAD_DEADLINE \\(500 ms\\): \\d+ of ${body.length} bytes received`,
    ),
  );
  assert.doesNotMatch(error.message, /hunter2|secret/);
  assert.ok(error.bytes > 0 && error.bytes < body.length, `some bytes arrived: ${error.bytes}`);
});

test('CHAINVISOR_DOWNLOAD_DEADLINE covers the retries and their backoff', async (t) => {
  const s = await server(t);
  s.route('/simd', { body, always: { kind: 'status', status: 503 } });
  // Ten retries one second apart would take ten seconds; the deadline ends it during a backoff.
  const { fetch } = await setup(t, { deadlineMs: 300, retries: 10, backoff: { baseMs: 1000, maxMs: 1000, retryAfterCapMs: 1000 }, random: () => 1 });
  await assert.rejects(fetch(s.url('/simd')), { code: 'CHAINVISOR_DOWNLOAD_DEADLINE', message: /0 bytes received, 1 attempt$/ });
});
