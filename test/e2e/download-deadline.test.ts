/**
 * CHAINVISOR_DOWNLOAD_DEADLINE with the real `chainvisor run`: the node halts for an upgrade whose
 * binary a local server sends a few bytes at a time (never slow enough for the stall timeout). Past
 * the deadline the upgrade fails: exit 79, a coded error naming the URL (credentials redacted) and
 * the bytes received, nothing installed, `current` unchanged.
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
import { makeHome, type TestHome } from '../support/home.js';

describe('chainvisor run: the download deadline', () => {
  let t: TestHome;
  let server: FaultServer;
  beforeEach(async () => {
    t = await makeHome({ DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true', CHAINVISOR_DOWNLOAD_DEADLINE: '1s', CHAINVISOR_DOWNLOAD_TIMEOUT: '5s' });
    server = await startFaultServer();
  });
  afterEach(async () => {
    await server.close();
    await t.cleanup();
  });

  test('a trickling download fails the upgrade with 79 once the deadline has passed', async () => {
    const binary = randomBytes(64 * 1024);
    server.route('/v2/simd', { body: binary, always: { kind: 'trickle', bytes: 8, everyMs: 25 } });
    const url = withChecksum(server.url('/v2/simd'), binary).replace('http://', 'http://ops:s3cret-token@');
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10, binariesInfo({ [hostPlatform()]: url })), style: 'exit' } });
    await t.cliOk(['init', genesis]);

    const r = await t.cli(['run', 'start']);

    assert.equal(r.exitCode, 79, r.stderr);
    assert.match(r.stderr, /chainvisor: code: CHAINVISOR_DOWNLOAD_DEADLINE/);
    assert.match(
      r.stderr,
      /download of the [a-z0-9/]+ binary from http:\/\/\*\*\*@127\.0\.0\.1:\d+\/v2\/simd did not finish within CHAINVISOR_DOWNLOAD_DEADLINE \(1000 ms\): \d+ of 65536 bytes received/,
    );
    assert.doesNotMatch(r.stderr, /s3cret-token/, 'credentials never reach the output');
    assert.equal(await t.current(), 'genesis');
    assert.deepEqual(await fs.readdir(path.join(t.home, 'cosmovisor', 'upgrades')), [], 'nothing installed, no work folder left');
  });
});
