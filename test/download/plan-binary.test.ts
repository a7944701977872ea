/**
 * downloadUpgradeBinary, the supervisor's entry point: what ends up on disk after success and after
 * each kind of failure. After a failure nothing is installed, no work folder remains, `current` is
 * untouched, and the next attempt can succeed.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { constants } from 'node:zlib';

import { fakeBinary, goodArchives, gzip, hostileArchives, tar, zip } from '../../scripts/make-hostile-archives.js';
import { downloadUpgradeBinary, type DownloadUpgradeOptions } from '../../src/download/index.js';
import { planTarget } from '../../src/home/layout/index.js';
import { ChainvisorError, ExitCode } from '../../src/shared/errors/index.js';
import { binariesInfo, fastBackoff, listTree, memoryLogger, tempDir, testSetup, withChecksum } from '../support/download-kit.js';
import { type FaultServer, startFaultServer } from '../support/fault-server.js';
import { tryMountTmpfs } from '../support/tmpfs.js';

const archives = goodArchives('simd');
const tarGz = archives.tarGz?.data as Buffer;

interface Ctx {
  server: FaultServer;
  home: string;
  root: string;
  /** Downloads the plan `V2` (folder `upgrades/v2`), or the one whose folder is `extra.dir`. */
  run(info: string, extra?: Partial<DownloadUpgradeOptions> & { dir?: string }, env?: Record<string, string>): Promise<{ binary: string }>;
  /** What is in $DAEMON_HOME/cosmovisor. */
  tree(): Promise<string[]>;
  log: ReturnType<typeof memoryLogger>;
}

async function setup(t: TestContext, home?: string): Promise<Ctx> {
  home ??= await tempDir(t);
  const server = await startFaultServer();
  t.after(() => server.close());
  const log = memoryLogger();
  const root = path.join(home, 'cosmovisor');
  await fs.mkdir(path.join(root, 'genesis', 'bin'), { recursive: true });
  await fs.writeFile(path.join(root, 'genesis', 'bin', 'simd'), fakeBinary('v1'), { mode: 0o755 });
  await fs.symlink('genesis', path.join(root, 'current'));
  return {
    server,
    home,
    root,
    log,
    run(info, extra = {}, env = {}) {
      const { config, layout } = testSetup(home, env);
      const { dir = 'upgrades/V2', ...rest } = extra;
      return downloadUpgradeBinary({
        target: planTarget(layout, { name: dir.slice('upgrades/'.length), height: 100, info }),
        config,
        layout,
        logger: log.logger,
        platform: 'linux/amd64',
        fetch: fastBackoff,
        ...rest,
      });
    },
    tree: () => listTree(root),
  };
}

async function assertNothingInstalled(ctx: Ctx): Promise<void> {
  assert.deepEqual(await ctx.tree(), ['current', 'genesis/', 'genesis/bin/', 'genesis/bin/simd', 'upgrades/'], 'no upgrade folder, no work folder');
  assert.equal(await fs.readlink(path.join(ctx.root, 'current')), 'genesis', 'current is untouched');
}

test('installs a tar.gz: the folder appears with the binary and its libraries, nothing else changes', async (t) => {
  const ctx = await setup(t);
  ctx.server.route('/simd.tar.gz', { body: tarGz });
  const { binary } = await ctx.run(binariesInfo({ 'linux/amd64': withChecksum(ctx.server.url('/simd.tar.gz'), tarGz) }));
  assert.equal(binary, path.join(ctx.root, 'upgrades', 'v2', 'bin', 'simd'));
  assert.equal((await fs.stat(binary)).mode & 0o111, 0o111);
  assert.deepEqual(await ctx.tree(), [
    'current',
    'genesis/',
    'genesis/bin/',
    'genesis/bin/simd',
    'upgrades/',
    'upgrades/v2/',
    'upgrades/v2/bin/',
    'upgrades/v2/bin/simd',
    'upgrades/v2/lib/',
    'upgrades/v2/lib/libwasmvm.so',
    'upgrades/v2/lib/libwasmvm.x86_64.so',
  ]);
  assert.equal(await fs.readlink(path.join(ctx.root, 'current')), 'genesis');
  assert.match(ctx.log.text(), /checksum verified/);
});

test('installs a plain executable, a zip, and uses the "any" entry when the host has none', async (t) => {
  for (const [key, dir] of [
    ['plain', 'upgrades/p'],
    ['zip', 'upgrades/z'],
  ] as const) {
    const ctx = await setup(t);
    const data = archives[key]?.data as Buffer;
    ctx.server.route('/bin', { body: data });
    const { binary } = await ctx.run(binariesInfo({ any: withChecksum(ctx.server.url('/bin'), data), 'darwin/arm64': 'https://x/y' }), { dir });
    assert.equal(await fs.readFile(binary, 'utf8'), fakeBinary());
  }
});

test('checksum mismatch: nothing installed, current unchanged; the next attempt with a fixed file succeeds', async (t) => {
  const ctx = await setup(t);
  const info = binariesInfo({ 'linux/amd64': withChecksum(ctx.server.url('/simd.tar.gz'), tarGz) });
  ctx.server.route('/simd.tar.gz', { body: archives.tar?.data });
  await assert.rejects(ctx.run(info), (error: unknown) => {
    assert.ok(error instanceof ChainvisorError);
    assert.equal(error.code, 'CHAINVISOR_CHECKSUM_MISMATCH');
    assert.equal(error.exitCode, ExitCode.upgradeFailed);
    assert.match(
      error.message,
      /checksum mismatch for linux\/amd64 binary from http:\/\/127\.0\.0\.1:\d+\/simd\.tar\.gz: expected sha256:[0-9a-f]{64}, got sha256:[0-9a-f]{64}/,
    );
    return true;
  });
  await assertNothingInstalled(ctx);

  ctx.server.route('/simd.tar.gz', { body: tarGz });
  const { binary } = await ctx.run(info);
  assert.equal(await fs.readFile(binary, 'utf8'), fakeBinary());
});

test('a URL without a checksum is refused before anything is fetched', async (t) => {
  const ctx = await setup(t);
  ctx.server.route('/simd.tar.gz', { body: tarGz });
  await assert.rejects(ctx.run(binariesInfo({ 'linux/amd64': ctx.server.url('/simd.tar.gz') })), { code: 'CHAINVISOR_CHECKSUM_REQUIRED', exitCode: 79 });
  assert.equal(ctx.server.requests.length, 0);
  await assertNothingInstalled(ctx);
});

test('no entry for this host and no "any": the error lists the keys', async (t) => {
  const ctx = await setup(t);
  await assert.rejects(ctx.run(binariesInfo({ 'darwin/arm64': 'https://a', 'windows/amd64': 'https://b' })), {
    code: 'CHAINVISOR_NO_PLATFORM',
    message: /no binary for linux\/amd64 and no "any" entry; it lists darwin\/arm64, windows\/amd64/,
  });
  await assertNothingInstalled(ctx);
});

test('a 404: a clear error, nothing installed', async (t) => {
  const ctx = await setup(t);
  await assert.rejects(ctx.run(binariesInfo({ 'linux/amd64': withChecksum(ctx.server.url('/gone'), tarGz) })), {
    code: 'CHAINVISOR_DOWNLOAD_FAILED',
    status: 404,
    exitCode: 79,
  });
  await assertNothingInstalled(ctx);
});

test('a hostile archive through the whole path: refused, nothing installed', async (t) => {
  const ctx = await setup(t);
  const evil = hostileArchives({ name: 'simd', escapeRelative: '../../../../evil', escapeAbsolute: path.join(ctx.home, 'evil-abs') });
  const data = evil.tarTraversal?.data as Buffer;
  ctx.server.route('/evil.tar', { body: data });
  await assert.rejects(ctx.run(binariesInfo({ 'linux/amd64': withChecksum(ctx.server.url('/evil.tar'), data) })), {
    code: 'CHAINVISOR_ARCHIVE_UNSAFE',
    exitCode: 79,
  });
  await assertNothingInstalled(ctx);
  await assert.rejects(fs.lstat(path.join(ctx.home, '..', 'evil')), { code: 'ENOENT' });
});

test('the smoke test: a binary that fails `version` is not installed', async (t) => {
  const ctx = await setup(t);
  const broken = Buffer.from('#!/bin/sh\necho "cannot load libwasmvm" >&2\nexit 1\n');
  ctx.server.route('/simd', { body: broken });
  const info = binariesInfo({ 'linux/amd64': withChecksum(ctx.server.url('/simd'), broken) });
  await assert.rejects(ctx.run(info, {}, { CHAINVISOR_SMOKE_TEST: 'true' }), { code: 'CHAINVISOR_SMOKE_TEST_FAILED', message: /libwasmvm/ });
  await assertNothingInstalled(ctx);
  const good = Buffer.from(fakeBinary());
  ctx.server.route('/simd2', { body: good });
  await ctx.run(binariesInfo({ 'linux/amd64': withChecksum(ctx.server.url('/simd2'), good) }), {}, { CHAINVISOR_SMOKE_TEST: 'true' });
  assert.match(ctx.log.text(), /smoke test passed/);
});

test('an upgrades/<dir> left without a binary does not block: empty is removed, non-empty moved aside', async (t) => {
  const ctx = await setup(t);
  ctx.server.route('/simd.tar.gz', { body: tarGz });
  const info = binariesInfo({ 'linux/amd64': withChecksum(ctx.server.url('/simd.tar.gz'), tarGz) });
  await fs.mkdir(path.join(ctx.root, 'upgrades', 'v2', 'bin'), { recursive: true });
  await fs.writeFile(path.join(ctx.root, 'upgrades', 'v2', 'upgrade-info.json'), '{}');
  await ctx.run(info);
  const entries = await fs.readdir(path.join(ctx.root, 'upgrades'));
  assert.equal(entries.length, 2);
  const aside = entries.find((e) => e.startsWith('v2.replaced-'));
  assert.ok(aside, `moved aside: ${entries.join(', ')}`);
  assert.deepEqual(await listTree(path.join(ctx.root, 'upgrades', aside)), ['bin/', 'upgrade-info.json']);
  assert.match(ctx.log.text(), /moved aside \(not deleted\)/);
});

test("a crashed attempt's work folder is removed by the next attempt", async (t) => {
  const ctx = await setup(t);
  ctx.server.route('/simd.tar.gz', { body: tarGz });
  // A pid that cannot be alive: above the kernel's pid_max.
  const stale = path.join(ctx.root, '.download-4999999-deadbeef-v2');
  await fs.mkdir(path.join(stale, 'tree', 'bin'), { recursive: true });
  await ctx.run(binariesInfo({ 'linux/amd64': withChecksum(ctx.server.url('/simd.tar.gz'), tarGz) }));
  await assert.rejects(fs.lstat(stale), { code: 'ENOENT' });
});

test('cancelled mid-download: a clear error, nothing left behind', async (t) => {
  const ctx = await setup(t);
  ctx.server.route('/simd.tar.gz', { body: tarGz, always: { kind: 'stall', afterBytes: 100 } });
  const controller = new AbortController();
  const pending = ctx.run(binariesInfo({ 'linux/amd64': withChecksum(ctx.server.url('/simd.tar.gz'), tarGz) }), { signal: controller.signal });
  // Cancel once the request has reached the server.
  for (const deadline = Date.now() + 10_000; ctx.server.requests.length === 0;) {
    assert.ok(Date.now() < deadline, 'the request never reached the server');
    await new Promise((r) => setTimeout(r, 5));
  }
  controller.abort(new Error('stopping'));
  await assert.rejects(pending, { code: 'CHAINVISOR_DOWNLOAD_ABORTED', exitCode: 79 });
  await assertNothingInstalled(ctx);
});

test('the disk fills while the archive unpacks (tar.gz as it arrives, zip after): the extraction is named, "the disk is full" once', async (t) => {
  // 8 MiB of two-bit noise: about 2.3 MB on the wire (the download fits on the 4 MiB disk; far
  // below the decompression-ratio guard), twice the disk once unpacked. Huffman coding alone: noise
  // has no repeats to find, and searching for them (levels 6 and 9) took 4.5 s of CPU and saved nothing.
  const big = Buffer.from(randomBytes(8 << 20).map((b) => b & 3));
  const huffman = { strategy: constants.Z_HUFFMAN_ONLY };
  const releases = {
    'tar.gz': gzip(
      tar([
        { name: 'bin/simd', body: fakeBinary(), mode: 0o755 },
        { name: 'lib/libbig.so', body: big },
      ]),
      huffman,
    ),
    zip: zip([
      { name: 'bin/simd', body: fakeBinary(), mode: 0o100755, method: 'deflate' },
      { name: 'lib/libbig.so', body: big, method: 'deflate', deflate: huffman },
    ]),
  };
  for (const [kind, data] of Object.entries(releases)) {
    const mount = await tempDir(t);
    if (!tryMountTmpfs(mount, '4m')) {
      t.skip('SKIPPED: cannot mount a small tmpfs here (needs root and a host that allows mounts); the full-disk extraction is not tested');
      return;
    }
    try {
      const ctx = await setup(t, mount);
      ctx.server.route(`/simd.${kind}`, { body: data });
      const error = await ctx.run(binariesInfo({ 'linux/amd64': withChecksum(ctx.server.url(`/simd.${kind}`), data) })).then(
        () => assert.fail(`${kind}: installed on a full disk`),
        (e: unknown) => e as ChainvisorError,
      );
      assert.equal(error.code, 'CHAINVISOR_DOWNLOAD_IO', `${kind}: ${error.message}`);
      assert.equal(error.exitCode, ExitCode.upgradeFailed);
      assert.match(
        error.message,
        new RegExp(
          `^could not extract the linux/amd64 binary from http://127\\.0\\.0\\.1:\\d+/simd\\.${kind.replace('.', '\\.')}: writing ${mount}/cosmovisor/\\S+: the disk is full \\(ENOSPC\\)$`,
        ),
        `${kind}: ${error.message}`,
      );
      assert.doesNotMatch(error.message, /could not write the download|ENOSPC.*ENOSPC/, kind);
      assert.match(error.hint ?? '', /free disk space/, kind);
      await assertNothingInstalled(ctx);
    } finally {
      // Lazily: after a failed entry, unzipper's reader may still hold the archive open.
      execFileSync('umount', ['-l', mount]);
    }
  }
});
