/**
 * `chainvisor status` without `run`: what the home says — current, the plan the node halted for,
 * staged binaries, queued manual upgrades, backups — and, after a run ended, what it recorded.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { plan } from '../../support/fake-node.js';
import { makeHome, type TestHome } from '../../support/home.js';

describe('chainvisor status', () => {
  let t: TestHome;
  beforeEach(async () => {
    t = await makeHome();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  test('without run: reads current, the halt file, staged binaries, the batch file and backups', async () => {
    const genesis = await t.fakeNode({ label: 'genesis', runMs: 10 });
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v2', genesis]);
    await t.cliOk(['add-upgrade', 'v3', genesis]);
    const data = path.join(t.home, 'data');
    await fs.mkdir(data, { recursive: true });
    await fs.writeFile(path.join(data, 'upgrade-info.json'), JSON.stringify(plan('v2', 10)));
    await fs.writeFile(
      path.join(data, 'upgrade-info.json.batch'),
      JSON.stringify([
        { name: 'v4', height: 40, info: '' },
        { name: 'v3', height: 30 },
      ]),
    );
    await fs.mkdir(path.join(t.home, 'data-backup-2026-11-22'));

    const doc = JSON.parse((await t.cliOk(['status', '--output', 'json'])).stdout);
    assert.equal(doc.chainvisor.running, false);
    assert.equal(doc.current.name, 'genesis');
    assert.equal(doc.current.binary, path.join(t.home, 'cosmovisor', 'genesis', 'bin', 'simd'));
    assert.equal(doc.node.state, 'unsupervised');
    assert.equal(doc.node.pid, null);
    assert.deepEqual(doc.pending, { name: 'v2', height: 10, source: 'halt-file', blocksRemaining: null, binaryPresent: true, eta: null });
    assert.deepEqual(
      doc.staged.map((s: { name: string }) => s.name),
      ['v2', 'v3'],
    );
    assert.deepEqual(doc.queued, [
      { name: 'v3', height: 30 },
      { name: 'v4', height: 40 },
    ]);
    assert.deepEqual(
      doc.backups.map((b: { name: string }) => b.name),
      ['data-backup-2026-11-22'],
    );
    assert.equal(doc.lastUpgrade, null);
    assert.equal(doc.health.ok, false);

    const text = (await t.cliOk(['status'])).stdout;
    assert.match(text, /^pending\s+v2 at height 10 \(from halt-file\), binary installed$/m);
    assert.match(text, /^queued\s+v3@30, v4@40$/m);
  });

  test('after a run ended: the last upgrade it applied, and no live node', async () => {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'exit', afterMs: 50 } });
    const v2 = await t.fakeNode({ label: 'v2', runMs: 50, exitCode: 0 });
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v2', v2]);
    assert.equal((await t.cli(['run', 'start'])).exitCode, 0);
    const doc = JSON.parse((await t.cliOk(['status', '-o', 'json'])).stdout);
    assert.equal(doc.chainvisor.running, false);
    assert.equal(doc.current.name, 'v2');
    assert.equal(doc.current.height, 10);
    assert.equal(doc.pending, null, 'the halt file is applied');
    assert.equal(doc.lastUpgrade.name, 'v2');
    assert.equal(doc.lastUpgrade.result, 'applied');
    assert.equal(typeof doc.lastUpgrade.durationSeconds, 'number');
  });

  test("a home cosmovisor upgraded: the last upgrade's time unknown (null), the backups dated by their names", async () => {
    const genesis = await t.fakeNode({ label: 'genesis', runMs: 10 });
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v2', genesis]);
    await fs.writeFile(path.join(t.home, 'cosmovisor', 'upgrades', 'v2', 'upgrade-info.json'), JSON.stringify(plan('v2', 10)));
    const current = path.join(t.home, 'cosmovisor', 'current');
    await fs.rm(current);
    await fs.symlink(path.join(t.home, 'cosmovisor', 'upgrades', 'v2'), current);
    // cosmovisor's names (month and day not padded); the folders' mtimes are today's, as after a copy to a new disk.
    await fs.mkdir(path.join(t.home, 'data-backup-2025-6-1'));
    await fs.mkdir(path.join(t.home, 'data-backup-2025-12-10'));
    const madeAt = new Date(2025, 11, 10, 15, 30);
    await fs.utimes(path.join(t.home, 'data-backup-2025-12-10'), madeAt, madeAt);

    const doc = JSON.parse((await t.cliOk(['status', '-o', 'json'])).stdout);
    assert.deepEqual(doc.lastUpgrade, { name: 'v2', height: 10, result: 'applied', durationSeconds: null, time: null });
    assert.deepEqual(
      doc.backups.map((b: { name: string; time: string }) => [b.name, b.time]),
      [
        ['data-backup-2025-12-10', madeAt.toISOString()],
        ['data-backup-2025-6-1', new Date(2025, 5, 1).toISOString()],
      ],
    );
  });

  test('a bad --output is a usage error', async () => {
    const r = await t.cli(['status', '--output', 'yaml']);
    assert.equal(r.exitCode, 64);
    assert.match(r.stderr, /--output must be json or text/);
  });
});
