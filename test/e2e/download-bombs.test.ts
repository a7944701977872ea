/**
 * Decompression bombs downloaded by `chainvisor run` at the halt height, as the outside campaign of #31
 * sent them: a bare gzip, bzip2, xz or zstd "binary" that inflates to 256 MiB, served whole or in small
 * pieces (1000 and 4000 bytes a write), with its right checksum, under a 64 MiB
 * CHAINVISOR_EXTRACT_MAX_BYTES: each is refused by the inflate guard's ratio (exit 79,
 * CHAINVISOR_ARCHIVE_TOO_LARGE), never with a stack (Node 22's web-streams adapter threw on the xz one
 * in small pieces), and nothing half-written is left. And the 296 KB zstd bomb with the wrong checksum,
 * served slowly, that filled a 1 GiB home: downloaded to a file, refused for its checksum, never
 * unpacked, and the home's disk never fuller than the archive itself and a few MiB.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { compressedBomb, type Compressor, compressors, zstdZerosBomb } from '../../scripts/make-compressed-archives.js';
import { hostPlatform } from '../../src/download/index.js';
import { binariesInfo, sha256, withChecksum } from '../support/download-kit.js';
import { plan } from '../support/fake-node.js';
import { type FaultServer, startFaultServer } from '../support/fault-server.js';
import { makeHome, type TestHome } from '../support/home.js';
import { peakGrowth, tryMountTmpfs } from '../support/tmpfs.js';

const bombs = new Map<Compressor, Buffer>();
const bomb = (compressor: Compressor): Buffer => {
  let data = bombs.get(compressor);
  if (data === undefined) {
    data = compressedBomb(compressor).data;
    bombs.set(compressor, data);
  }
  return data;
};

describe('chainvisor run: a decompression bomb at the halt height', () => {
  let t: TestHome;
  let server: FaultServer;
  beforeEach(async () => {
    t = await makeHome({
      DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true',
      CHAINVISOR_EXTRACT_MAX_BYTES: String(64 << 20),
      CHAINVISOR_DOWNLOAD_RETRIES: '0',
    });
    server = await startFaultServer();
  });
  afterEach(async () => {
    await server.close();
    await t.cleanup();
  });

  async function genesisHaltingFor(info: string): Promise<void> {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10, info), style: 'exit' } });
    await t.cliOk(['init', genesis]);
  }

  /** What chainvisor left beside current, genesis and upgrades: work folders, temp links. */
  async function leftovers(): Promise<string[]> {
    const own = new Set(['.chainvisor', 'config.toml', 'current', 'genesis', 'upgrades']);
    const top = (await fs.readdir(path.join(t.home, 'cosmovisor'))).filter((n) => !own.has(n));
    return [...top, ...(await fs.readdir(path.join(t.home, 'cosmovisor', 'upgrades'))).map((n) => `upgrades/${n}`)];
  }

  for (const compressor of compressors) {
    for (const bytes of [1000, 4000, undefined]) {
      const how = bytes === undefined ? 'whole' : `${bytes} bytes a write`;
      test(`a ${compressor} bomb (${how}): refused by the ratio, exit 79, nothing left behind`, async () => {
        const data = bomb(compressor);
        server.route('/simd', { body: data, ...(bytes === undefined ? {} : { always: { kind: 'trickle', bytes, everyMs: 1 } }) });
        await genesisHaltingFor(binariesInfo({ [hostPlatform()]: withChecksum(server.url('/simd'), data) }));

        const r = await t.cli(['run', 'start']);

        assert.equal(r.exitCode, 79, r.stderr);
        assert.match(r.stderr, /CHAINVISOR_ARCHIVE_TOO_LARGE/);
        assert.match(r.stderr, /expands more than 1000 times its compressed size/);
        assert.doesNotMatch(r.stderr, /this is a bug|TypeError|\n\s+at /);
        assert.equal(await t.current(), 'genesis');
        assert.deepEqual(await leftovers(), [], 'no .current.tmp-*, .download-* or upgrade folder left');
      });
    }
  }

  /** Served over `seconds` (about 100 pieces a second at most), as a slow mirror would. */
  function serveSlowly(route: string, data: Buffer, seconds: number): void {
    const pieces = seconds * 10;
    server.route(route, { body: data, always: { kind: 'trickle', bytes: Math.ceil(data.length / pieces), everyMs: 100 } });
  }

  /** A bomb with the wrong checksum: a mismatch, the whole file downloaded, and nothing unpacked before. */
  function assertMismatch(r: { exitCode: number | undefined; stderr: string }, route: string): void {
    assert.equal(r.exitCode, 79, r.stderr);
    assert.match(r.stderr, /code: CHAINVISOR_CHECKSUM_MISMATCH/);
    assert.doesNotMatch(r.stderr, /CHAINVISOR_ARCHIVE_TOO_LARGE|this is a bug|\n\s+at /);
    const [request] = server.requestsTo(route);
    assert.ok(request?.trickled.whole, 'the checksum covers the whole file: it was downloaded to its last byte');
  }

  test('a zstd bomb with the wrong checksum, served over 3 s: refused for its checksum, never unpacked', async () => {
    const data = await zerosBomb();
    serveSlowly('/simd.zst', data, 3);
    await genesisHaltingFor(binariesInfo({ [hostPlatform()]: `${server.url('/simd.zst')}?checksum=sha256:${sha256('another file')}` }));

    const r = await t.cli(['run', 'start']);

    assertMismatch(r, '/simd.zst');
    assert.equal(await t.current(), 'genesis');
    assert.deepEqual(await leftovers(), [], 'no .download-* folder, no partial file');
  });

  test("the campaign's case: the 296 KB zstd bomb with the wrong checksum, served slowly, never fills a small home", async (ctx) => {
    // A 1 GiB home in the campaign, here 256 MiB (the old code filled either within seconds);
    // CHAINVISOR_EXTRACT_MAX_BYTES at its 8 GiB default, so only the ratio stands in the way.
    const mount = path.join(t.root, 'small-home');
    await fs.mkdir(mount);
    if (!tryMountTmpfs(mount, '256m')) return void ctx.skip('cannot mount a small tmpfs here (needs root and a host that allows mounts)');
    try {
      const home = path.join(mount, 'home');
      await fs.cp(t.home, home, { recursive: true });
      const data = await zerosBomb();
      assert.ok(data.length > 280_000 && data.length < 310_000, `${data.length} bytes`);
      serveSlowly('/simd.zst', data, 3);
      const info = binariesInfo({ [hostPlatform()]: `${server.url('/simd.zst')}?checksum=sha256:${sha256('another file')}` });
      const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10, info), style: 'exit' } });
      const env = { DAEMON_HOME: home, CHAINVISOR_EXTRACT_MAX_BYTES: String(8 * 2 ** 30) };
      await t.cliOk(['init', genesis], env);

      const { result: r, grewBy } = await peakGrowth(mount, () => t.cli(['run', 'start'], env));

      assert.ok(grewBy <= data.length + (16 << 20), `the home's disk grew by ${grewBy} bytes while the bomb arrived`);
      assertMismatch(r, '/simd.zst');
      const own = new Set(['.chainvisor', 'config.toml', 'current', 'genesis', 'upgrades']);
      assert.deepEqual(
        (await fs.readdir(path.join(home, 'cosmovisor'))).filter((n) => !own.has(n)),
        [],
      );
    } finally {
      execFileSync('umount', ['-l', mount]);
    }
  });
});

/** The campaign's bomb: 9 GiB of zeros after a script, by the zstd encoder itself (296 KB; built once, in a few seconds). */
let zerosBombData: Promise<Buffer> | undefined;
const zerosBomb = (): Promise<Buffer> => (zerosBombData ??= zstdZerosBomb(9 * 2 ** 30));
