/**
 * An empty file is never a node binary (refused at init, add-upgrade, start and switch); a binary that
 * group or others can write runs, with a warning naming it, its mode and the fix.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { plan } from '../../support/fake-node.js';
import { makeHome, type TestHome } from '../../support/home.js';

async function exists(file: string): Promise<boolean> {
  return fs.lstat(file).then(
    () => true,
    () => false,
  );
}

describe('empty and writable node binaries', () => {
  let t: TestHome;
  let empty: string;
  beforeEach(async () => {
    t = await makeHome();
    empty = path.join(t.root, 'empty-simd');
    await fs.writeFile(empty, '', { mode: 0o755 });
  });
  afterEach(async () => {
    await t.cleanup();
  });

  test('init refuses an empty file (64) and creates nothing', async () => {
    const r = await t.cli(['init', empty]);
    assert.equal(r.exitCode, 64, r.stderr);
    assert.match(r.stderr, new RegExp(`error: ${empty} is empty \\(0 bytes\\): not a node binary`));
    assert.match(r.stderr, /hint: give the path of the built node binary/);
    assert.match(r.stderr, /code: CHAINVISOR_BINARY_EMPTY/);
    assert.equal(await exists(path.join(t.home, 'cosmovisor')), false);
  });

  test('add-upgrade refuses an empty file (64) and creates no upgrade folder', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const r = await t.cli(['add-upgrade', 'v2', empty]);
    assert.equal(r.exitCode, 64, r.stderr);
    assert.match(r.stderr, /is empty \(0 bytes\)/);
    assert.equal(await exists(path.join(t.home, 'cosmovisor/upgrades/v2')), false);
  });

  test('add-batch-upgrade refuses an empty file (64) before anything is written', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const v3 = await t.fakeNode({ label: 'v3' });
    const r = await t.cli(['add-batch-upgrade', '--upgrade-list', `v3:${v3}:200,v2:${empty}:100`], { DAEMON_GRPC_ADDRESS: '127.0.0.1:1' });
    assert.equal(r.exitCode, 64, r.stderr);
    assert.match(r.stderr, /"v2": .* is empty \(0 bytes\)/);
    assert.equal(await exists(path.join(t.home, 'cosmovisor/upgrades/v3')), false, 'the good entry was not installed either');
    assert.equal(await exists(path.join(t.home, 'data/upgrade-info.json.batch')), false);
  });

  test('run refuses to start an empty current binary (78); no node runs', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const binary = path.join(t.home, 'cosmovisor/genesis/bin/simd');
    await fs.truncate(binary, 0);
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 78, r.stderr);
    assert.match(r.stderr, new RegExp(`error: ${binary} is empty \\(0 bytes\\)`));
    assert.match(r.stderr, /code: CHAINVISOR_BINARY_EMPTY/);
    assert.deepEqual(await t.journalLines(), []);
  });

  test('an upgrade whose binary is empty is not switched to (79); current stays', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'exit' } })]);
    const binary = path.join(t.home, 'cosmovisor/upgrades/v2/bin/simd');
    await fs.mkdir(path.dirname(binary), { recursive: true });
    await fs.writeFile(binary, '', { mode: 0o755 });
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 79, r.stderr);
    assert.match(r.stderr, new RegExp(`${binary} is empty \\(0 bytes\\)`));
    assert.equal(await t.current(), 'genesis');
    assert.deepEqual(await t.journalLines(), ['genesis start [start]', 'genesis halted']);
  });

  test('a current binary that group or others can write runs, with a warning naming it, its mode and chmod go-w', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 50, exitCode: 0 })]);
    const binary = path.join(t.home, 'cosmovisor/genesis/bin/simd');
    await fs.chmod(binary, 0o775);
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.deepEqual(await t.journalLines(), ['genesis start [start]', 'genesis exit 0']);
    assert.ok(r.stderr.includes(`starting the node: the node binary ${binary} (mode 0775) can be written by its group`), r.stderr);
    assert.ok(r.stderr.includes(`chmod go-w ${binary}`), r.stderr);
  });

  test('an owner-only-writable binary gives no warning', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 50, exitCode: 0 })]);
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /chmod go-w/);
  });

  test('an upgrade binary that others can write is switched to, with a warning at the switch', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'exit' } })]);
    await t.cliOk(['add-upgrade', 'v2', await t.fakeNode({ label: 'v2', runMs: 50, exitCode: 0 })]);
    const binary = path.join(t.home, 'cosmovisor/upgrades/v2/bin/simd');
    await fs.chmod(binary, 0o757);
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(await t.current(), 'upgrades/v2');
    // JSON log lines escape the quotes around the upgrade's name.
    assert.ok(r.stderr.includes(`switching to upgrade \\"v2\\": the node binary ${binary} (mode 0757) can be written by others`), r.stderr);
  });
});
