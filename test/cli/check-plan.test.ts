/** `chainvisor check-plan`, run in-process through the CLI entry against a local server. */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test, type TestContext } from 'node:test';

import { goodArchives, hostileArchives } from '../../scripts/make-hostile-archives.js';
import { main } from '../../src/cli/index.js';
import { hostPlatform } from '../../src/download/index.js';
import { binariesInfo, withChecksum } from '../support/download-kit.js';
import { type FaultServer, startFaultServer } from '../support/fault-server.js';

const archives = goodArchives('simd');
const tarGz = archives.tarGz?.data as Buffer;
const zip = archives.zip?.data as Buffer;
const host = hostPlatform();
const other = host === 'darwin/arm64' ? 'linux/amd64' : 'darwin/arm64';

async function server(t: TestContext): Promise<FaultServer> {
  const s = await startFaultServer();
  t.after(() => s.close());
  s.route('/host.tar.gz', { body: tarGz });
  s.route('/other.zip', { body: zip });
  return s;
}

async function checkPlan(args: string[], env: Record<string, string> = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await main(['check-plan', ...args], { env: { DAEMON_NAME: 'simd', CHAINVISOR_DOWNLOAD_RETRIES: '0', ...env }, stdout, stderr });
  return { code, out, err };
}

test("checks only the host's binary by default: downloaded, verified, inspected, smoke-tested", async (t) => {
  const s = await server(t);
  const info = binariesInfo({ [host]: withChecksum(s.url('/host.tar.gz'), tarGz), [other]: withChecksum(s.url('/other.zip'), zip) });
  const r = await checkPlan(['--info', info]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /PLATFORM\s+URL\s+SIZE\s+CHECKSUM\s+BINARY\s+SMOKE TEST/);
  assert.match(r.out, new RegExp(`${host}\\s+${s.origin}/host\\.tar\\.gz\\s+\\S+ \\w*B\\s+ok\\s+bin/simd \\(tar\\.gz\\)\\s+ok: v2\\.0\\.0`));
  assert.match(r.out, new RegExp(`${other}\\s+${s.origin}/other\\.zip\\s+-\\s+not checked\\s+not downloaded`));
  assert.deepEqual(
    s.requests.map((q) => q.path),
    ['/host.tar.gz'],
    'only the host binary is downloaded',
  );
  assert.match(r.out, /ok: 1 binary checked \(--all-platforms downloads the other 1\)/);
});

test('--all-platforms: every binary, one row each; a mismatch and a missing binary fail the check', async (t) => {
  const s = await server(t);
  const missing = hostileArchives({ name: 'simd', escapeRelative: '../x', escapeAbsolute: '/x' }).tarMissingBinary?.data as Buffer;
  s.route('/missing.tar.gz', { body: missing });
  const info = binariesInfo({
    [host]: withChecksum(s.url('/host.tar.gz'), tarGz),
    [other]: withChecksum(s.url('/other.zip'), 'not the zip'),
    'windows/amd64': withChecksum(s.url('/missing.tar.gz'), missing),
  });
  const r = await checkPlan(['--info', info, '--all-platforms']);
  assert.equal(r.code, 79);
  assert.match(r.out, new RegExp(`${other}\\s+\\S+other\\.zip\\s+\\S+ \\w*B\\s+MISMATCH\\s+-\\s+n/a \\(other platform\\)`));
  assert.match(r.out, /windows\/amd64\s+\S+missing\.tar\.gz\s+\S+ \w*B\s+ok\s+NOT FOUND\s+n\/a \(other platform\)/);
  assert.match(r.out, new RegExp(`${host}\\s+\\S+\\s+\\S+ \\w*B\\s+ok\\s+bin/simd`));
  assert.match(r.err, new RegExp(`${other}: error: checksum mismatch`));
  assert.match(r.err, /windows\/amd64: error: .*holds neither bin\/simd nor simd/);
  assert.match(r.out, /FAILED: 2 of 3 entries have problems/);
});

test("another platform's URL without a checksum fails the check, even when not downloaded", async (t) => {
  const s = await server(t);
  const r = await checkPlan(['--info', binariesInfo({ [host]: withChecksum(s.url('/host.tar.gz'), tarGz), [other]: s.url('/other.zip') })]);
  assert.equal(r.code, 79);
  assert.match(r.err, new RegExp(`${other}: error: the URL of the ${other} binary has no checksum`));
  assert.deepEqual(
    s.requests.map((q) => q.path),
    ['/host.tar.gz'],
  );
});

test('a URL without a checksum fails the check without being downloaded', async (t) => {
  const s = await server(t);
  const r = await checkPlan(['--info', binariesInfo({ [host]: s.url('/host.tar.gz') })]);
  assert.equal(r.code, 79);
  assert.match(r.err, /CHAINVISOR_CHECKSUM_REQUIRED|has no checksum/);
  assert.equal(s.requests.length, 0);
});

test('an Info with no entry for this host lists the keys it has', async () => {
  const r = await checkPlan(['--info', binariesInfo({ 'plan9/mips': 'https://example.invalid/x' })]);
  assert.equal(r.code, 79);
  assert.match(r.err, new RegExp(`no binary for ${host} and no "any" entry; it lists plan9/mips`));
});

test('usage errors: --info missing, or no binary name', async () => {
  assert.equal((await checkPlan([])).code, 64);
  const r = await checkPlan(['--info', '{}'], { DAEMON_NAME: '' });
  assert.equal(r.code, 64);
  assert.match(r.err, /--name/);
});

test('a malformed Info is a clear error', async () => {
  const r = await checkPlan(['--info', '{"binaries": {"linux-amd64": "https://x"}}']);
  assert.equal(r.code, 79);
  assert.match(r.err, /key "linux-amd64" is not "<os>\/<arch>" or "any"/);
});
