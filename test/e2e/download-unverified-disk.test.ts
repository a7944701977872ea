/**
 * Bytes whose checksum is not verified take at most the archive's own size plus 16 MiB of the home's
 * disk (#44): `chainvisor run` at the halt height, its home on a 256 MiB tmpfs. A gzip "binary" that
 * expands about 200:1 (under the inflate guard's 1000:1) with the wrong checksum, served slowly,
 * used to be unpacked as it arrived (160 MiB before the mismatch); now the archive is downloaded,
 * its checksum fails, and nothing is unpacked. The same kind of archive with its right checksum, in a
 * release, still installs and runs.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test, type TestContext } from 'node:test';

import { compress, highRatioBinary } from '../../scripts/make-compressed-archives.js';
import { tar } from '../../scripts/make-hostile-archives.js';
import { hostPlatform } from '../../src/download/index.js';
import { binariesInfo, sha256, withChecksum } from '../support/download-kit.js';
import { fakeNodeScript, plan } from '../support/fake-node.js';
import { type FaultServer, startFaultServer } from '../support/fault-server.js';
import { makeHome, type TestHome } from '../support/home.js';
import { peakGrowth, tryMountTmpfs } from '../support/tmpfs.js';

const MiB = 1 << 20;

describe('chainvisor run: unverified bytes on a small disk', () => {
  let t: TestHome;
  let server: FaultServer;
  let mounted: string | undefined;
  beforeEach(async () => {
    t = await makeHome({ DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true', DAEMON_RESTART_AFTER_UPGRADE: 'true', CHAINVISOR_DOWNLOAD_RETRIES: '0' });
    server = await startFaultServer();
  });
  afterEach(async () => {
    if (mounted !== undefined) execFileSync('umount', ['-l', mounted]);
    mounted = undefined;
    await server.close();
    await t.cleanup();
  });

  /** A copy of the test's home on a 256 MiB tmpfs, initialised with a genesis that halts for `info`; undefined where no tmpfs can be mounted. */
  async function smallHome(ctx: TestContext, info: string): Promise<{ mount: string; home: string; env: Record<string, string> } | undefined> {
    const mount = path.join(t.root, 'small-home');
    await fs.mkdir(mount);
    if (!tryMountTmpfs(mount, '256m')) return void ctx.skip('cannot mount a small tmpfs here (needs root and a host that allows mounts)');
    mounted = mount;
    const home = path.join(mount, 'home');
    await fs.cp(t.home, home, { recursive: true });
    const env = { DAEMON_HOME: home };
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10, info), style: 'exit' } });
    await t.cliOk(['init', genesis], env);
    return { mount, home, env };
  }

  test('a 200:1 gzip with the wrong checksum, served over 4 s: the checksum fails, the disk grows by the archive alone', async (ctx) => {
    const data = compress('gzip', highRatioBinary(160 * MiB));
    assert.ok(data.length < 2 * MiB, `${data.length} bytes`);
    server.route('/simd.gz', { body: data, always: { kind: 'trickle', bytes: Math.ceil(data.length / 40), everyMs: 100 } });
    const small = await smallHome(ctx, binariesInfo({ [hostPlatform()]: `${server.url('/simd.gz')}?checksum=sha256:${sha256('another file')}` }));
    if (small === undefined) return;

    const { result: r, grewBy } = await peakGrowth(small.mount, () => t.cli(['run', 'start'], small.env));

    assert.equal(r.exitCode, 79, r.stderr);
    assert.match(r.stderr, /code: CHAINVISOR_CHECKSUM_MISMATCH/);
    assert.doesNotMatch(r.stderr, /CHAINVISOR_ARCHIVE_TOO_LARGE|this is a bug|\n\s+at /);
    assert.ok(grewBy <= data.length + 16 * MiB, `the home's disk grew by ${grewBy} bytes for a ${data.length}-byte archive`);
    assert.equal(await fs.readlink(path.join(small.home, 'cosmovisor', 'current')), 'genesis');
    const own = new Set(['.chainvisor', 'config.toml', 'current', 'genesis', 'upgrades']);
    assert.deepEqual(
      (await fs.readdir(path.join(small.home, 'cosmovisor'))).filter((n) => !own.has(n)),
      [],
      'no work folder left',
    );
  });

  test('a release holding the same kind of data, with its right checksum: verified, then unpacked whole, installed and run', async (ctx) => {
    const v2 = fakeNodeScript({ label: 'v2', journal: t.journal, runMs: 50, exitCode: 0 });
    const library = highRatioBinary(64 * MiB);
    const archive = compress(
      'gzip',
      tar([
        { name: 'bin/simd', body: v2, mode: 0o755 },
        { name: 'lib/libwasmvm.so', body: library },
      ]),
    );
    server.route('/simd.tar.gz', { body: archive });
    const small = await smallHome(ctx, binariesInfo({ [hostPlatform()]: withChecksum(server.url('/simd.tar.gz'), archive) }));
    if (small === undefined) return;

    const r = await t.cli(['run', 'start'], small.env);

    assert.equal(r.exitCode, 0, r.stderr);
    assert.ok((await t.journalLines()).includes('v2 start [start]'), 'the new binary ran');
    const installed = path.join(small.home, 'cosmovisor', 'upgrades', 'v2', 'lib', 'libwasmvm.so');
    assert.equal((await fs.stat(installed)).size, library.length);
  });
});
