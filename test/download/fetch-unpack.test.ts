/**
 * fetchAndUnpack in go-getter's order: the archive is downloaded to a file (through a resume, or a
 * restart from zero), its checksum compared, and only then unpacked. While it downloads, and after a
 * mismatch, the work folder holds the downloaded file alone; a bomb with the wrong checksum is a
 * mismatch, with the right one refused by the inflate guard as it is unpacked.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { zstdRleBomb } from '../../scripts/make-compressed-archives.js';
import { fakeBinary, goodArchives, gzip, hostileArchives, tar } from '../../scripts/make-hostile-archives.js';
import { createFetcher, fetchAndUnpack, type Fetcher, type FetchProgress, parseSource } from '../../src/download/index.js';
import { ChainvisorError } from '../../src/shared/errors/index.js';
import { fastBackoff, listTree, memoryLogger, tempDir, withChecksum } from '../support/download-kit.js';
import { type FaultServer, startFaultServer } from '../support/fault-server.js';

/** bin/simd first, then an executable library large enough to be cut mid-way (random: gzip keeps its size). */
const library = randomBytes(512 * 1024);
const archive = gzip(
  tar([
    { name: 'bin/', type: 'dir' },
    { name: 'bin/simd', body: fakeBinary(), mode: 0o755 },
    { name: 'lib/', type: 'dir' },
    { name: 'lib/libhelper.so', body: library, mode: 0o755 },
  ]),
);
const cutAt = Math.floor(archive.length / 2);

async function setup(t: TestContext, timeoutMs = 2000): Promise<{ server: FaultServer; work: string; fetcher: Fetcher; log: ReturnType<typeof memoryLogger> }> {
  const server = await startFaultServer();
  t.after(() => server.close());
  const work = await tempDir(t);
  const log = memoryLogger();
  const fetcher = createFetcher({
    timeoutMs,
    retries: 3,
    maxBytes: 64 << 20,
    policy: { allowInsecureHttp: false, allowFileUrls: false },
    logger: log.logger,
    ...fastBackoff,
  });
  t.after(() => fetcher.close());
  return { server, work, fetcher, log };
}

function stage(ctx: { work: string; fetcher: Fetcher; log: ReturnType<typeof memoryLogger> }, url: string, progress: FetchProgress = {}) {
  return fetchAndUnpack({
    progress,
    source: parseSource(url, { mustHaveChecksum: true, what: 'linux/amd64 binary' }),
    platform: 'linux/amd64',
    name: 'simd',
    workDir: ctx.work,
    fetcher: ctx.fetcher,
    limits: { maxBytes: 64 << 20, maxEntries: 100 },
    logger: ctx.log.logger,
    smokeTest: false,
  });
}

async function waitFor(what: string, check: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 10_000; !(await check());) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const exists = (file: string): Promise<boolean> =>
  fs.lstat(file).then(
    () => true,
    () => false,
  );

test('nothing is unpacked while the archive downloads: only the file, until the checksum matched', async (t) => {
  const ctx = await setup(t, 1000);
  // The first answer stops half-way (and stalls until the idle timeout); the retry resumes with Range.
  ctx.server.route('/simd.tar.gz', { body: archive, etag: '"v2"', faults: [{ kind: 'stall', afterBytes: cutAt }] });
  const pending = stage(ctx, withChecksum(ctx.server.url('/simd.tar.gz'), archive));

  const file = path.join(ctx.work, 'download');
  await waitFor('half of the archive in the downloaded file', async () => (await exists(file)) && (await fs.stat(file)).size >= cutAt);
  assert.deepEqual(await fs.readdir(ctx.work), ['download'], 'no tree, no extraction before the checksum matched');

  const staged = await pending;
  assert.equal(staged.resumes, 1, 'the download resumed');
  assert.equal(staged.unpacked.kind, 'gzip-compressed tar archive');
  assert.equal(staged.tree, path.join(ctx.work, 'tree'));
  assert.deepEqual(await listTree(staged.tree), ['bin/', 'bin/simd', 'lib/', 'lib/libhelper.so']);
  assert.equal((await fs.stat(staged.unpacked.binary)).mode & 0o111, 0o111);
  assert.equal((await fs.stat(path.join(staged.tree, 'lib', 'libhelper.so'))).mode & 0o100, 0o100, 'execute bits kept');
  assert.deepEqual(await fs.readFile(path.join(staged.tree, 'lib', 'libhelper.so')), library);
});

test('checksum mismatch: the mismatch is the error, nothing was unpacked', async (t) => {
  const ctx = await setup(t);
  const other = gzip(
    tar([
      { name: 'bin/simd', body: fakeBinary('v9'), mode: 0o755 },
      { name: 'lib/x.so', body: randomBytes(64 * 1024) },
    ]),
  );
  ctx.server.route('/simd.tar.gz', { body: other });
  await assert.rejects(stage(ctx, withChecksum(ctx.server.url('/simd.tar.gz'), archive)), { code: 'CHAINVISOR_CHECKSUM_MISMATCH' });
  assert.deepEqual(await fs.readdir(ctx.work), ['download'], 'only the downloaded file, which the caller removes with the work folder');
});

test('a hostile archive under a wrong checksum is reported as a mismatch; under the right one as unsafe; nothing escapes', async (t) => {
  const ctx = await setup(t);
  const escape = path.join(ctx.work, '..', `evil-${path.basename(ctx.work)}`);
  const evil = hostileArchives({ name: 'simd', escapeRelative: '../../evil', escapeAbsolute: escape }).tarAbsolute?.data as Buffer;
  assert.ok(evil, 'the hostile archive exists');
  ctx.server.route('/evil.tar', { body: evil });
  await assert.rejects(stage(ctx, withChecksum(ctx.server.url('/evil.tar'), archive)), { code: 'CHAINVISOR_CHECKSUM_MISMATCH' });
  assert.deepEqual(await fs.readdir(ctx.work), ['download']);
  await fs.rm(path.join(ctx.work, 'download'));
  await assert.rejects(stage(ctx, withChecksum(ctx.server.url('/evil.tar'), evil)), (error: unknown) => {
    assert.ok(error instanceof ChainvisorError);
    assert.equal(error.code, 'CHAINVISOR_ARCHIVE_UNSAFE');
    return true;
  });
  assert.deepEqual(await fs.readdir(ctx.work), ['download']);
  assert.equal(await exists(escape), false);
});

test('a bomb: under a wrong checksum a mismatch, nothing unpacked; under its right one refused as it is unpacked', async (t) => {
  const ctx = await setup(t);
  const bomb = zstdRleBomb(9_700_000_000);
  ctx.server.route('/simd.zst', { body: bomb });
  const progress: FetchProgress = {};
  await assert.rejects(stage(ctx, `${ctx.server.url('/simd.zst')}?checksum=sha256:${'0'.repeat(64)}`, progress), { code: 'CHAINVISOR_CHECKSUM_MISMATCH' });
  assert.equal(progress.bytes, bomb.length, 'the whole archive was downloaded and hashed');
  assert.equal(progress.unpacked, undefined);
  assert.deepEqual(await fs.readdir(ctx.work), ['download'], 'only the downloaded file');

  await fs.rm(path.join(ctx.work, 'download'));
  await assert.rejects(stage(ctx, withChecksum(ctx.server.url('/simd.zst'), bomb)), (error: unknown) => {
    assert.ok(error instanceof ChainvisorError);
    assert.equal(error.code, 'CHAINVISOR_ARCHIVE_TOO_LARGE');
    assert.match(error.message, /expands more than 1000 times/);
    return true;
  });
});

test('a server that restarts from zero (200 to a Range request): the file starts again and the tree is whole', async (t) => {
  const ctx = await setup(t);
  ctx.server.route('/simd.tar.gz', { body: archive, faults: [{ kind: 'drop', afterBytes: cutAt }, { kind: 'ignore-range' }] });
  const staged = await stage(ctx, withChecksum(ctx.server.url('/simd.tar.gz'), archive));
  assert.ok(ctx.server.requestsTo('/simd.tar.gz')[1]?.range, 'a range was asked for');
  assert.equal(staged.resumes, 1);
  assert.deepEqual(await listTree(staged.tree), ['bin/', 'bin/simd', 'lib/', 'lib/libhelper.so']);
  assert.deepEqual(await fs.readFile(path.join(staged.tree, 'lib', 'libhelper.so')), library);
  assert.equal(await fs.readFile(staged.unpacked.binary, 'utf8'), fakeBinary());
  assert.match(ctx.log.text(), /starting over/);
});

test('zip and plain executables: unpacked from the file after the checksum, as every format', async (t) => {
  const ctx = await setup(t);
  const plain = Buffer.from(fakeBinary());
  ctx.server.route('/simd', { body: plain });
  const staged = await stage(ctx, withChecksum(ctx.server.url('/simd'), plain));
  assert.equal(staged.unpacked.from, '(plain executable)');

  const zipped = goodArchives('simd').zip?.data as Buffer;
  const zipWork = await tempDir(t);
  ctx.server.route('/simd.zip', { body: zipped });
  const fromZip = await stage({ ...ctx, work: zipWork }, withChecksum(ctx.server.url('/simd.zip'), zipped));
  assert.equal(fromZip.unpacked.format, 'zip');
  assert.equal(await fs.readFile(fromZip.unpacked.binary, 'utf8'), fakeBinary());
});
