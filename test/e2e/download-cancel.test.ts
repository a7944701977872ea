/**
 * `chainvisor run` asked to stop (SIGTERM) while it downloads an upgrade binary from a server that
 * sends almost nothing: what the operator reads. One line says the download was cancelled because
 * chainvisor is stopping; no line carries a stack; nothing says the download "finished"; exit
 * 128+15, `current` unchanged, no work folder left.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { hostPlatform } from '../../src/download/index.js';
import { binariesInfo, withChecksum } from '../support/download-kit.js';
import { plan } from '../support/fake-node.js';
import { type FaultServer, startFaultServer } from '../support/fault-server.js';
import { makeHome, type TestHome, waitFor } from '../support/home.js';

describe('chainvisor run: a download cancelled by SIGTERM', () => {
  let t: TestHome;
  let server: FaultServer;
  beforeEach(async () => {
    t = await makeHome({ DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true', CHAINVISOR_DOWNLOAD_TIMEOUT: '30s' });
    server = await startFaultServer();
  });
  afterEach(async () => {
    await server.close();
    await t.cleanup();
  });

  for (const [name, route] of [
    ['before the response head', { always: { kind: 'no-answer' } }],
    ['mid-body', { always: { kind: 'stall', afterBytes: 1000 } }],
  ] as const) {
    test(`cancelled ${name}: one line says so, no stack, no "finished"`, async () => {
      const binary = randomBytes(64 * 1024);
      server.route('/v2/simd', { body: binary, ...route });
      const url = withChecksum(server.url('/v2/simd'), binary);
      const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10, binariesInfo({ [hostPlatform()]: url })), style: 'exit' } });
      await t.cliOk(['init', genesis]);

      const run = t.spawn(['run', 'start']);
      await waitFor(() => server.requestsTo('/v2/simd').length > 0, 'the download reached the server');
      // Let the download settle into waiting (the progress view has seen it start).
      await new Promise((r) => setTimeout(r, 300));
      run.kill('SIGTERM');
      const r = await run;
      const out = r.all ?? '';

      assert.equal(r.exitCode, 143, out);
      assert.match(out, /download of the [a-z0-9/]+ binary from http:\/\/127\.0\.0\.1:\d+\/v2\/simd(\?…)? was cancelled: chainvisor is stopping/);
      assert.doesNotMatch(out, /node:internal|\\n\s+at |"stack"/, 'no stack in any line');
      assert.doesNotMatch(out, /download finished/, 'a cancelled download did not finish');
      assert.equal(await t.current(), 'genesis');
      assert.deepEqual(
        (await fs.readdir(path.join(t.home, 'cosmovisor', 'upgrades'))).filter((n) => !n.startsWith('.')),
        [],
        'nothing installed',
      );
    });
  }
});
