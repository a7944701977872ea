/**
 * `chainvisor restore` and what an operator does around it (issue #43): the manual-upgrade queue
 * (data/upgrade-info.json.batch) of today is listed in the plan and carried into the restored data,
 * never the backup's, unless --drop-queue; `--dry-run` is read only, so it answers while `run` is
 * active and says the restore itself needs the node and `run` stopped.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { snapshot } from '../../support/data-tree.js';
import { makeHome, type TestHome, waitFor } from '../../support/home.js';
import { upgradedHome } from '../../support/upgraded-home.js';

describe('chainvisor restore: the manual-upgrade queue and a read-only dry run', () => {
  let t: TestHome;
  beforeEach(async () => {
    t = await makeHome();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  const batch = (dir: string) => path.join(dir, 'upgrade-info.json.batch');
  const data = () => path.join(t.home, 'data');
  const replacedFolders = async () => (await fs.readdir(t.home)).filter((n) => n.startsWith('data.replaced-'));

  test("the current queue is listed and kept, the backup's is not put back; --drop-queue restores without one", async () => {
    const { backup } = await upgradedHome(t);
    const queued = '[{"name": "v3", "height": 300}, {"name": "v4", "height": 400, "info": "by hand"}]\n';
    await fs.writeFile(batch(data()), queued);
    await fs.writeFile(batch(backup), '[{"name": "v2", "height": 100}]');

    const dry = await t.cli(['restore', '--dry-run']);
    assert.equal(dry.exitCode, 0, dry.stderr);
    assert.match(
      dry.stdout,
      /upgrade queue {2}kept: v3 at 300, v4 at 400 \(data\/upgrade-info\.json\.batch carried over .*\); the backup's queue \(v2 at 100\) is not put back/,
    );
    const json = JSON.parse((await t.cliOk(['restore', '--dry-run', '--output', 'json'])).stdout);
    assert.equal(json.plan.queue.kept, true);
    assert.deepEqual(json.plan.queue.current.plans, [
      { name: 'v3', height: 300 },
      { name: 'v4', height: 400 },
    ]);

    const kept = await t.cli(['restore', '--yes']);
    assert.equal(kept.exitCode, 0, kept.stderr);
    assert.match(kept.stdout, /upgrade queue {2}kept: v3 at 300/);
    assert.match(kept.stdout, /^upgrade queue: kept$/m);
    assert.equal(await fs.readFile(batch(data()), 'utf8'), queued, 'the queue of today, byte for byte, in the restored data');
    assert.equal(await fs.readFile(batch(backup), 'utf8'), '[{"name": "v2", "height": 100}]', 'the backup is unchanged');
    const status = JSON.parse((await t.cliOk(['status', '--output', 'json'])).stdout);
    assert.deepEqual(
      status.queued.map((q: { name: string }) => q.name),
      ['v3', 'v4'],
      'status still lists the queue',
    );

    const dropped = await t.cli(['restore', '--yes', '--drop-queue', '--backup', backup]);
    assert.equal(dropped.exitCode, 0, dropped.stderr);
    assert.match(dropped.stdout, /upgrade queue {2}dropped \(--drop-queue\): v3 at 300, v4 at 400/);
    await assert.rejects(fs.access(batch(data())), { code: 'ENOENT' }, 'no queue at all: neither today’s nor the backup’s');
    const [first] = (await replacedFolders()).sort();
    assert.equal(await fs.readFile(batch(path.join(t.home, first as string)), 'utf8'), queued, 'the queue is kept in the data set aside');
  });

  test('--dry-run while run is active: the plan, nothing changed, the lock left to run; the restore itself is still refused (82)', async () => {
    await upgradedHome(t);
    await t.cliOk(['add-upgrade', 'v2', await t.fakeNode({ label: 'v2' }), '--force']);
    const run = t.spawn(['run', 'start'], { CHAINVISOR_SIGN_GUARD: 'off' });
    try {
      await waitFor(async () => (await t.journalLines()).some((l) => l.startsWith('v2 start')), 'the node started');
      const lock = path.join(t.home, 'cosmovisor', '.chainvisor', 'lock.json');
      const lockBefore = await fs.readFile(lock, 'utf8');
      const dataBefore = await snapshot(data());
      const dry = await t.cli(['restore', '--dry-run']);
      assert.equal(dry.exitCode, 0, dry.stderr);
      assert.match(dry.stdout, /^restore plan:/);
      assert.match(dry.stdout, /dry run: nothing was changed\. The restore itself needs the node and 'chainvisor run' stopped/);
      assert.doesNotMatch(dry.stderr, /CHAINVISOR_HOME_LOCKED/);
      const json = await t.cli(['restore', '--dry-run', '--output', 'json']);
      assert.equal(json.exitCode, 0, json.stderr);
      assert.equal(JSON.parse(json.stdout).dryRun, true);
      assert.equal(await fs.readFile(lock, 'utf8'), lockBefore, "run's lock record is untouched");
      assert.deepEqual(await snapshot(data()), dataBefore);
      assert.deepEqual(await replacedFolders(), []);

      const real = await t.cli(['restore', '--yes']);
      assert.equal(real.exitCode, 82, real.stderr);
      assert.match(real.stderr, /code: CHAINVISOR_HOME_LOCKED/);
    } finally {
      run.kill('SIGTERM');
      await run;
    }
  });

  test('--dry-run writes nothing anywhere in the home, cosmovisor/.chainvisor included', async () => {
    await upgradedHome(t);
    const before = await snapshot(t.home);
    const dry = await t.cli(['restore', '--dry-run']);
    assert.equal(dry.exitCode, 0, dry.stderr);
    assert.deepEqual(await snapshot(t.home), before);
  });
});
