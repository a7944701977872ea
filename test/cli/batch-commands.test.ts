import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { makeHome, type TestHome } from '../support/home.js';

describe('add-upgrade --upgrade-height and add-batch-upgrade: the command line', () => {
  let t: TestHome;
  beforeEach(async () => {
    // Nothing listens on port 1: the node "is not running".
    t = await makeHome({ DAEMON_GRPC_ADDRESS: '127.0.0.1:1' });
  });
  afterEach(async () => {
    await t.cleanup();
  });

  test('usage errors exit 64', async () => {
    const bin = await t.fakeNode({ label: 'v2' });
    assert.equal((await t.cli(['add-batch-upgrade'])).exitCode, 64);
    assert.equal((await t.cli(['add-batch-upgrade', '--upgrade-list', `v2:${bin}:5`, '--upgrade-file', 'x'])).exitCode, 64);
    assert.equal((await t.cli(['add-batch-upgrade', '--upgrade-list', `v2:${bin}:five`])).exitCode, 64);
    assert.equal((await t.cli(['add-upgrade', 'v2', bin, '--upgrade-height', '0'])).exitCode, 64);
  });

  test('with the node stopped: queued with a warning; a second entry at the same height is refused', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const r = await t.cli(['add-upgrade', 'v2', await t.fakeNode({ label: 'v2' }), '--upgrade-height', '100']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.match(r.stderr, /not checked against the chain/);
    const csv = path.join(t.root, 'u.csv');
    await writeFile(csv, `v3,${await t.fakeNode({ label: 'v3' })},100\n`);
    const clash = await t.cli(['add-batch-upgrade', '--upgrade-file', csv]);
    assert.equal(clash.exitCode, 64, clash.stderr);
    assert.match(clash.stderr, /height 100 already has the queued upgrade "v2"/);
  });
});
