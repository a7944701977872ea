/**
 * End to end, with the real `chainvisor run` as a child process: a fake node halts for an upgrade
 * whose Info points at a local server; chainvisor downloads (through a dropped connection, resumed),
 * verifies, installs, switches and restarts the new binary. And a checksum mismatch: exit 79, a clear
 * message, `current` still on genesis, nothing under upgrades/ — then, the file fixed, the next start
 * applies the upgrade.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { gzip, tar } from '../../scripts/make-hostile-archives.js';
import { hostPlatform } from '../../src/download/index.js';
import { binariesInfo, withChecksum } from '../support/download-kit.js';
import { fakeNodeScript, plan } from '../support/fake-node.js';
import { type FaultServer, startFaultServer } from '../support/fault-server.js';
import { makeHome, type TestHome } from '../support/home.js';

describe('chainvisor run: automatic download', () => {
  let t: TestHome;
  let server: FaultServer;
  beforeEach(async () => {
    t = await makeHome({ DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true', DAEMON_RESTART_AFTER_UPGRADE: 'true' });
    server = await startFaultServer();
  });
  afterEach(async () => {
    await server.close();
    await t.cleanup();
  });

  /** A release archive: the v2 node (journals that it ran, exits 0) and a 512 KiB shared library. */
  function release(): Buffer {
    const v2 = fakeNodeScript({ label: 'v2', journal: t.journal, runMs: 50, exitCode: 0 });
    return gzip(
      tar([
        { name: 'bin/simd', body: v2, mode: 0o755 },
        { name: 'lib/libwasmvm.so', body: randomBytes(512 * 1024) },
      ]),
    );
  }

  async function genesisHaltingFor(info: string): Promise<void> {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10, info), style: 'exit' } });
    const init = await t.cli(['init', genesis]);
    assert.equal(init.exitCode, 0, init.stderr);
  }

  async function cosmovisorEntries(): Promise<string[]> {
    // .chainvisor is chainvisor's own state folder (status file) and config.toml is written by init:
    // neither is a work folder.
    const own = new Set(['.chainvisor', 'config.toml']);
    return (await fs.readdir(path.join(t.home, 'cosmovisor'))).filter((n) => !own.has(n)).sort();
  }

  test('downloads, verifies, switches and restarts the new binary (a dropped connection is resumed)', async () => {
    const archive = release();
    server.route('/v2/simd.tar.gz', { body: archive, faults: [{ kind: 'drop', afterBytes: 200_000 }] });
    await genesisHaltingFor(binariesInfo({ [hostPlatform()]: withChecksum(server.url('/v2/simd.tar.gz'), archive) }));
    // An empty folder left by an earlier attempt: removed by the install, not moved aside.
    await fs.mkdir(path.join(t.home, 'cosmovisor', 'upgrades', 'v2'));

    const r = await t.cli(['run', 'start']);

    assert.equal(r.exitCode, 0, `chainvisor exits with the new node's code; stderr:\n${r.stderr}`);
    assert.match(r.stderr, /removed an empty upgrade folder/);
    assert.deepEqual(await fs.readdir(path.join(t.home, 'cosmovisor', 'upgrades')), ['v2'], 'nothing moved aside');
    assert.deepEqual(await t.journalLines(), ['genesis start [start]', 'genesis halted', 'v2 pre-upgrade 1', 'v2 start [start]', 'v2 exit 0']);
    assert.equal(await t.current(), 'upgrades/v2');
    const installed = path.join(t.home, 'cosmovisor', 'upgrades', 'v2');
    assert.equal((await fs.stat(path.join(installed, 'lib', 'libwasmvm.so'))).size, 512 * 1024, 'the library travelled with the binary');
    assert.deepEqual(await cosmovisorEntries(), ['current', 'genesis', 'upgrades'], 'no work folder left');
    assert.deepEqual(
      (await fs.readdir(installed)).filter((n) => n.startsWith('.')),
      [],
      'no temp file left beside the plan record',
    );
    assert.match(await fs.readFile(path.join(installed, 'upgrade-info.json'), 'utf8'), /"name":"v2"/);
    const requests = server.requestsTo('/v2/simd.tar.gz');
    assert.equal(requests.length, 2);
    assert.match(requests[1]?.range ?? '', /^bytes=[1-9]\d*-$/, 'the second request resumed');
    assert.match(r.stderr, /resuming the download/);
  });

  test('checksum mismatch: exit 79, current stays on genesis, nothing under upgrades/; fixed, the next start upgrades', async () => {
    const archive = release();
    server.route('/v2/simd.tar.gz', { body: Buffer.concat([archive, Buffer.from('tampered')]) });
    await genesisHaltingFor(binariesInfo({ [hostPlatform()]: withChecksum(server.url('/v2/simd.tar.gz'), archive) }));

    const failed = await t.cli(['run', 'start']);

    assert.equal(failed.exitCode, 79, failed.stderr);
    assert.match(
      failed.stderr,
      /checksum mismatch for .*binary from http:\/\/127\.0\.0\.1:\d+\/v2\/simd\.tar\.gz: expected sha256:[0-9a-f]{64}, got sha256:[0-9a-f]{64}/,
    );
    assert.match(failed.stderr, /do not switch binaries until it is resolved/);
    assert.equal(await t.current(), 'genesis');
    assert.deepEqual(await fs.readdir(path.join(t.home, 'cosmovisor', 'upgrades')), [], 'nothing under upgrades/');
    assert.deepEqual(await cosmovisorEntries(), ['current', 'genesis', 'upgrades'], 'no work folder left');
    assert.deepEqual(await t.journalLines(), ['genesis start [start]', 'genesis halted']);

    server.route('/v2/simd.tar.gz', { body: archive });
    const fixed = await t.cli(['run', 'start']);
    assert.equal(fixed.exitCode, 0, fixed.stderr);
    assert.equal(await t.current(), 'upgrades/v2');
    assert.deepEqual((await t.journalLines()).slice(2), ['v2 pre-upgrade 1', 'v2 start [start]', 'v2 exit 0']);
  });
});
