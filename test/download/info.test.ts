/** The plan's Info: JSON or URL, the host's key or `any`, and the errors an operator sees. */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { createFetcher, hostPlatform, parseInfoJson, pickBinary, resolveInfo } from '../../src/download/index.js';
import { silentLogger } from '../../src/shared/log.js';
import { fastBackoff, tempDir, withChecksum } from '../support/download-kit.js';
import { startFaultServer } from '../support/fault-server.js';

test('the host platform in Go names', () => {
  assert.equal(hostPlatform('linux', 'x64'), 'linux/amd64');
  assert.equal(hostPlatform('linux', 'arm64'), 'linux/arm64');
  assert.equal(hostPlatform('darwin', 'arm64'), 'darwin/arm64');
  assert.equal(hostPlatform('win32', 'x64'), 'windows/amd64');
  assert.equal(hostPlatform('linux', 'ia32'), 'linux/386');
  assert.equal(hostPlatform('linux', 'arm'), 'linux/arm');
  assert.match(hostPlatform(), /^[a-z0-9]+\/[a-z0-9]+$/);
});

test("the host's key first, then any; otherwise an error listing the keys present", () => {
  const info = parseInfoJson(JSON.stringify({ binaries: { 'linux/amd64': 'https://a', 'darwin/arm64': 'https://b' } }), 'inline');
  assert.deepEqual(pickBinary(info, 'linux/amd64'), { platform: 'linux/amd64', url: 'https://a' });
  const withAny = parseInfoJson(JSON.stringify({ binaries: { any: 'https://c', 'darwin/arm64': 'https://b' } }), 'inline');
  assert.deepEqual(pickBinary(withAny, 'linux/arm64'), { platform: 'any', url: 'https://c' });
  assert.throws(() => pickBinary(info, 'linux/arm64'), {
    code: 'CHAINVISOR_NO_PLATFORM',
    message: /no binary for linux\/arm64 and no "any" entry; it lists darwin\/arm64, linux\/amd64/,
  });
});

test('malformed Info: every problem at once', () => {
  assert.throws(() => parseInfoJson('{"binaries": {"linux-amd64": "https://a", "linux/arm64": 5}}', 'inline'), {
    code: 'CHAINVISOR_INFO_INVALID',
    message: /key "linux-amd64" is not "<os>\/<arch>" or "any"; binaries\["linux\/arm64"\] is not a URL string/,
  });
  assert.throws(() => parseInfoJson('{"binaries": {}}', 'inline'), { message: /"binaries" is empty/ });
  assert.throws(() => parseInfoJson('{"files": {}}', 'inline'), { message: /no "binaries" object/ });
  assert.throws(() => parseInfoJson('{"binaries": ', 'inline'), { message: /not valid JSON/, hint: /the Info must be .*chainvisor add-upgrade <name> <path>/ });
});

test('an empty Info, or free text, says the binary must be installed by hand', async (t) => {
  const dir = await tempDir(t);
  const fetcher = createFetcher({
    timeoutMs: 1000,
    retries: 0,
    maxBytes: 1 << 20,
    policy: { allowInsecureHttp: false, allowFileUrls: false },
    logger: silentLogger(),
  });
  t.after(() => fetcher.close());
  const opts = { mustHaveChecksum: true, fetcher, workDir: dir };
  await assert.rejects(resolveInfo('', opts), { code: 'CHAINVISOR_INFO_INVALID', message: /no Info/, hint: /add-upgrade/ });
  await assert.rejects(resolveInfo('upgrade to v2, see the forum', opts), {
    code: 'CHAINVISOR_INFO_INVALID',
    message: /neither a JSON binaries map nor a URL/,
  });
});

test('an Info URL: fetched, its own checksum verified, and required like any other', async (t) => {
  const dir = await tempDir(t);
  const server = await startFaultServer();
  t.after(() => server.close());
  const doc = JSON.stringify({ binaries: { any: 'https://dl.example.com/simd?checksum=sha256:' + 'a'.repeat(64) } });
  server.route('/info.json', { body: doc });
  const fetcher = createFetcher({
    timeoutMs: 1000,
    retries: 0,
    maxBytes: 1 << 20,
    policy: { allowInsecureHttp: false, allowFileUrls: false },
    logger: silentLogger(),
    ...fastBackoff,
  });
  t.after(() => fetcher.close());
  const opts = { mustHaveChecksum: true, fetcher, workDir: dir };

  const info = await resolveInfo(withChecksum(server.url('/info.json'), doc), opts);
  assert.deepEqual(Object.keys(info.binaries), ['any']);
  assert.equal(info.origin, `${server.origin}/info.json`);

  await assert.rejects(resolveInfo(withChecksum(server.url('/info.json'), 'something else'), opts), {
    code: 'CHAINVISOR_CHECKSUM_MISMATCH',
    message: /Info document/,
  });
  await assert.rejects(resolveInfo(server.url('/info.json'), opts), { code: 'CHAINVISOR_CHECKSUM_REQUIRED', message: /Info document/ });
  assert.equal(server.requests.length, 2, 'a URL without a checksum is refused before any request');
  assert.equal((await resolveInfo(server.url('/info.json'), { ...opts, mustHaveChecksum: false })).origin, `${server.origin}/info.json`);
  assert.deepEqual(await import('node:fs/promises').then((fs) => fs.readdir(path.join(dir))), [], 'the fetched document is not left behind');
});

test('an Info URL whose response head trickles is cut by CHAINVISOR_DOWNLOAD_TIMEOUT', async (t) => {
  const dir = await tempDir(t);
  const server = await startFaultServer();
  t.after(() => server.close());
  const doc = JSON.stringify({ binaries: { any: 'https://dl.example.com/simd?checksum=sha256:' + 'a'.repeat(64) } });
  server.route('/info.json', { body: doc, always: { kind: 'trickle-head', bytes: 1, everyMs: 100 } });
  const fetcher = createFetcher({
    timeoutMs: 500,
    retries: 0,
    maxBytes: 1 << 20,
    deadlineMs: 60_000,
    policy: { allowInsecureHttp: false, allowFileUrls: false },
    logger: silentLogger(),
    ...fastBackoff,
  });
  t.after(() => fetcher.close());
  await assert.rejects(resolveInfo(withChecksum(server.url('/info.json'), doc), { mustHaveChecksum: true, fetcher, workDir: dir }), {
    code: 'CHAINVISOR_DOWNLOAD_FAILED',
    message:
      /download of the Info document from http:\/\/127\.0\.0\.1:\d+\/info\.json(\?…)? failed after 1 attempt: the server sent its response head too slowly \(not complete within 500 ms/,
  });
  // Cut by the time limit, not by the end of the head (about 40 s of it at a byte per 100 ms).
  assert.equal(server.requests.length, 1);
  assert.equal(server.requests[0]?.trickled.whole, false, `cut after ${server.requests[0]?.trickled.sent} bytes of the head`);
});
