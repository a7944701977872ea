/**
 * A slow download under the real `chainvisor run`: progress lines (JSON, `event: download-progress`)
 * with bytes, total, rate and ETA appear while it trickles in, and chainvisor_download_bytes_total
 * counts the bytes. A zip, unpacked after its download, reports its extraction too (`extract-progress`).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { gzip, tar, zip } from '../../scripts/make-hostile-archives.js';
import { hostPlatform } from '../../src/download/index.js';
import { binariesInfo, withChecksum } from '../support/download-kit.js';
import { fakeNodeScript, plan } from '../support/fake-node.js';
import { type FaultServer, startFaultServer } from '../support/fault-server.js';
import { makeHome, type TestHome, waitFor } from '../support/home.js';
import { endpointOf, sample } from '../support/observe-kit.js';

describe('chainvisor run: download progress', () => {
  let t: TestHome;
  let server: FaultServer;
  beforeEach(async () => {
    t = await makeHome({ DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true', CHAINVISOR_LOG_FORMAT: 'json', CHAINVISOR_HTTP_ADDRESS: '127.0.0.1:0' });
    server = await startFaultServer();
  });
  afterEach(async () => {
    await server.close();
    await t.cleanup();
  });

  test('a slow download logs its progress and is counted in chainvisor_download_bytes_total', async () => {
    const v2 = fakeNodeScript({ label: 'v2', journal: t.journal });
    const archive = gzip(
      tar([
        { name: 'bin/simd', body: v2, mode: 0o755 },
        { name: 'lib/blob', body: randomBytes(320 * 1024) },
      ]),
    );
    server.route('/v2.tar.gz', { body: archive, always: { kind: 'trickle', bytes: 16 * 1024, everyMs: 100 } });
    const info = binariesInfo({ [hostPlatform()]: withChecksum(server.url('/v2.tar.gz'), archive) });
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10, info), style: 'exit', afterMs: 50 } });
    await t.cliOk(['init', genesis]);
    const run = t.spawn(['run', 'start']);
    try {
      const origin = await endpointOf(t);
      await waitFor(async () => (await t.journalLines()).some((l) => l.startsWith('v2 start')), 'the downloaded v2 runs', 60_000);
      const metrics = await (await fetch(`${origin}/metrics`)).text();
      assert.equal(sample(metrics, 'chainvisor_download_bytes_total'), archive.length);
    } finally {
      run.kill('SIGTERM');
    }
    const r = await run;
    const lines = r.stderr
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const progress = lines.filter((l) => l.event === 'download-progress');
    assert.ok(progress.length >= 5, `progress lines while the download trickles: ${progress.length}\n${r.stderr}`);
    for (const line of progress) {
      assert.equal(line.total, archive.length);
      for (const field of ['bytes', 'percent', 'bytesPerSecond', 'etaSeconds']) assert.ok(field in line, `${field} in ${JSON.stringify(line)}`);
    }
    assert.equal(progress.at(-1)?.bytes, archive.length);
    assert.equal(progress.at(-1)?.percent, 100);
    assert.ok(!String(progress[0]?.what).includes('checksum='), 'the URL is shown redacted');
    assert.deepEqual(
      lines.filter((l) => l.event === 'extract-progress'),
      [],
      'a tar is unpacked as it arrives: no extraction step of its own',
    );
  });

  test('a zip reports its extraction after the download, in uncompressed bytes, up to 100 %', async () => {
    const v2 = fakeNodeScript({ label: 'v2', journal: t.journal });
    const blob = randomBytes(3 * 1024 * 1024);
    const archive = zip([
      { name: 'bin/simd', body: v2, mode: 0o100755 },
      { name: 'lib/blob', body: blob, method: 'deflate' },
    ]);
    server.route('/v2.zip', { body: archive });
    const info = binariesInfo({ [hostPlatform()]: withChecksum(server.url('/v2.zip'), archive) });
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10, info), style: 'exit', afterMs: 50 } });
    await t.cliOk(['init', genesis]);
    const run = t.spawn(['run', 'start']);
    try {
      await waitFor(async () => (await t.journalLines()).some((l) => l.startsWith('v2 start')), 'the downloaded v2 runs', 60_000);
    } finally {
      run.kill('SIGTERM');
    }
    const r = await run;
    const lines = r.stderr
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const extraction = lines.filter((l) => l.event === 'extract-progress');
    const total = Buffer.byteLength(v2) + blob.length;
    assert.ok(extraction.length >= 1, `extraction progress lines:\n${r.stderr}`);
    for (const line of extraction) assert.equal(line.total, total);
    assert.equal(extraction.at(-1)?.bytes, total);
    assert.equal(extraction.at(-1)?.percent, 100);
    assert.match(String(extraction.at(-1)?.msg), /^extraction finished/);
  });
});
