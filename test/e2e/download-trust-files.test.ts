/**
 * End to end, `chainvisor run` mid-upgrade: the plan's Info points at an https server whose CA is in
 * SSL_CERT_DIR, while SSL_CERT_FILE (or a file beside the CA) is a FIFO or a link to /dev/zero. The
 * trust store is read at the first https request, in the middle of applying the upgrade: chainvisor
 * froze there ("applying upgrade", v2 never started, SIGTERM unanswered) or grew past gigabytes. Now
 * those files are skipped unread, the download verifies against the CA and v2 starts; and a SIGTERM
 * during the download ends chainvisor within DAEMON_SHUTDOWN_GRACE, `current` left on genesis.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { gzip, tar } from '../../scripts/make-hostile-archives.js';
import { hostPlatform } from '../../src/download/index.js';
import { binariesInfo, withChecksum } from '../support/download-kit.js';
import { fakeNodeScript, plan } from '../support/fake-node.js';
import { type FaultServer, startFaultServer } from '../support/fault-server.js';
import { makeHome, type TestHome, waitFor } from '../support/home.js';
import { endsWithin, makeNotFile } from '../support/not-files.js';
import { testCa } from '../support/tls.js';

/** Many times what the upgrade takes: a run still going then hangs. */
const hangs = 30_000;

describe('chainvisor run: an https upgrade when the trust store holds files that are not files', () => {
  let t: TestHome;
  let server: FaultServer;
  let certDir: string;
  const closers: Array<() => Promise<void>> = [];
  beforeEach(async () => {
    t = await makeHome({ DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true', DAEMON_RESTART_AFTER_UPGRADE: 'true', DAEMON_SHUTDOWN_GRACE: '1s' });
    server = await startFaultServer({ tls: true });
    // The CA in a folder, beside a link to /dev/zero and a FIFO: only the CA can be read.
    certDir = path.join(t.root, 'certs');
    await fs.mkdir(certDir);
    await fs.writeFile(path.join(certDir, 'corporate.pem'), testCa);
    closers.push(await makeNotFile(path.join(certDir, 'zero.pem'), 'zero'), await makeNotFile(path.join(certDir, 'fifo.pem'), 'fifo'));
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    await server.close();
    await t.cleanup();
  });

  /** The genesis node halts for v2, whose archive the https server holds (with `faults` on its first requests). */
  async function upgradeOverHttps(faults: Parameters<FaultServer['route']>[1]['faults'] = []): Promise<void> {
    const v2 = fakeNodeScript({ label: 'v2', journal: t.journal, runMs: 50, exitCode: 0 });
    const archive = gzip(tar([{ name: 'bin/simd', body: v2, mode: 0o755 }]));
    server.route('/v2/simd.tar.gz', { body: archive, faults });
    const info = binariesInfo({ [hostPlatform()]: withChecksum(server.url('/v2/simd.tar.gz'), archive) });
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10, info), style: 'exit' } })]);
  }

  async function sslCertFile(kind: 'fifo' | 'zero'): Promise<string> {
    const file = path.join(t.root, 'bundle.pem');
    closers.push(await makeNotFile(file, kind));
    return file;
  }

  for (const kind of ['fifo', 'zero'] as const) {
    test(`SSL_CERT_FILE ${kind === 'fifo' ? 'a FIFO' : 'a link to /dev/zero'}: the download verifies against SSL_CERT_DIR's CA, v2 starts`, async () => {
      await upgradeOverHttps();
      const run = t.spawn(['run', 'start'], { SSL_CERT_FILE: await sslCertFile(kind), SSL_CERT_DIR: certDir });
      const ending = await endsWithin(run, hangs);
      assert.ok(ending.ended, `chainvisor run still ran after ${hangs} ms: frozen mid-upgrade`);
      const r = await run;
      assert.equal(r.exitCode, 0, r.all);
      assert.equal(await t.current(), 'upgrades/v2');
      assert.deepEqual(await t.journalLines(), ['genesis start [start]', 'genesis halted', 'v2 pre-upgrade 1', 'v2 start [start]', 'v2 exit 0']);
    });

    test(`SSL_CERT_FILE ${kind === 'fifo' ? 'a FIFO' : 'a link to /dev/zero'}: a SIGTERM mid-upgrade ends chainvisor within DAEMON_SHUTDOWN_GRACE, current on genesis`, async () => {
      // The download stalls after its first bytes: chainvisor is in the middle of applying the upgrade.
      await upgradeOverHttps([{ kind: 'stall', afterBytes: 100 }]);
      const run = t.spawn(['run', 'start'], { SSL_CERT_FILE: await sslCertFile(kind), SSL_CERT_DIR: certDir });
      let output = '';
      run.all?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      // The request reaches the server once the trust store is read; a frozen chainvisor never sends it.
      await waitFor(() => server.requestsTo('/v2/simd.tar.gz').length > 0 || output.includes('applying upgrade'), 'the upgrade under way').catch(
        () => undefined,
      );
      await waitFor(() => server.requestsTo('/v2/simd.tar.gz').length > 0, 'the download under way', 5000).catch(() => undefined);
      // Straight to the process: execa's kill would follow it with a SIGKILL after 5 s.
      process.kill(run.pid as number, 'SIGTERM');
      const ending = await endsWithin(run, 1000 + hangs);
      assert.ok(ending.ended, `chainvisor still ran ${ending.ms} ms after SIGTERM:\n${output}`);
      const r = await run;
      assert.equal(r.exitCode, 143, `signal ${r.signal}:\n${r.all}`);
      assert.match(r.stderr, /stopped while applying an upgrade; current was not switched/);
      assert.equal(await t.current(), 'genesis');
      assert.equal(server.requestsTo('/v2/simd.tar.gz').length, 1, 'the download had begun');
    });
  }
});
