/**
 * Decompression bombs downloaded by `chainvisor run` at the halt height, as the outside campaign of #31
 * sent them: a bare gzip, bzip2, xz or zstd "binary" that inflates to 256 MiB, served whole or in small
 * pieces (1000 and 4000 bytes a write), with its right checksum, under a 64 MiB
 * CHAINVISOR_EXTRACT_MAX_BYTES: each is refused by the inflate guard's ratio (exit 79,
 * CHAINVISOR_ARCHIVE_TOO_LARGE), never with a stack (Node 22's web-streams adapter threw on the xz one
 * in small pieces), and nothing half-written is left. And the 296 KB zstd bomb with the wrong checksum
 * that filled a 1 GiB home: refused as a mismatch, with the home's disk never more than a few MiB fuller.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { compressedBomb, type Compressor, compressors, zstdRleBomb } from '../../scripts/make-compressed-archives.js';
import { hostPlatform } from '../../src/download/index.js';
import { binariesInfo, sha256, withChecksum } from '../support/download-kit.js';
import { plan } from '../support/fake-node.js';
import { type FaultServer, startFaultServer } from '../support/fault-server.js';
import { makeHome, type TestHome } from '../support/home.js';
import { tryMountTmpfs } from '../support/tmpfs.js';

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

  test('a 296 KB zstd bomb with the wrong checksum, served slowly: a mismatch, and the disk never fills', async (ctx) => {
    // The campaign's case: a 1 GiB home (here 256 MiB), CHAINVISOR_EXTRACT_MAX_BYTES at its 8 GiB default.
    const mount = path.join(t.root, 'small-home');
    await fs.mkdir(mount);
    if (!tryMountTmpfs(mount, '256m')) return void ctx.skip('cannot mount a small tmpfs here (needs root and a host that allows mounts)');
    try {
      const home = path.join(mount, 'home');
      await fs.cp(t.home, home, { recursive: true });
      const data = zstdRleBomb(9_700_000_000);
      assert.ok(data.length < 310_000, `${data.length} bytes`);
      server.route('/simd.zst', { body: data, always: { kind: 'trickle', bytes: 16 * 1024, everyMs: 20 } });
      const info = binariesInfo({ [hostPlatform()]: `${server.url('/simd.zst')}?checksum=sha256:${sha256('another file')}` });
      const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10, info), style: 'exit' } });
      const env = { DAEMON_HOME: home, CHAINVISOR_EXTRACT_MAX_BYTES: String(8 * 2 ** 30) };
      await t.cliOk(['init', genesis], env);
      const before = await used(mount);
      let peak = before;
      const sampler = setInterval(() => void used(mount).then((n) => (peak = Math.max(peak, n))), 25);

      const r = await t.cli(['run', 'start'], env).finally(() => clearInterval(sampler));

      assert.equal(r.exitCode, 79, r.stderr);
      assert.match(r.stderr, /CHAINVISOR_CHECKSUM_MISMATCH/);
      assert.ok(peak - before < 64 << 20, `the home's disk grew by ${peak - before} bytes while the bomb arrived`);
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

async function used(mount: string): Promise<number> {
  const s = await fs.statfs(mount);
  return (s.blocks - s.bfree) * s.bsize;
}
