/**
 * Manual upgrades on the simulated chain, end to end: chainvisor runs the genesis node with
 * `--halt-height` at the first queued height H; the old binary commits H and never H+1, and the new
 * binary commits H+1. Which binary committed which block is read from the nodes' own log lines.
 */
import assert from 'node:assert/strict';
import { readFile, readlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

import { proposeUpgrade, waitFor, waitForProposal } from '@chainvisor/simd/testing';
import { execa } from 'execa';

import { chainvisorSim, committedBy, handover, heightOf } from '../support/chainvisor-sim.js';

const batchOf = async (home: string) =>
  JSON.parse(await readFile(path.join(home, 'data', 'upgrade-info.json.batch'), 'utf8').catch(() => '[]')) as Array<{ name: string; height: number }>;

test('a batch of two queued before the start: each new binary takes over at exactly H+1, across a chainvisor restart', async (t) => {
  const sim = await chainvisorSim(t, ['genesis', 'v2', 'v3']);
  const [h1, h2] = [40, 200];
  // The node is not running: the heights cannot be checked yet, which is a warning, not a refusal.
  const add = await sim.cv(['add-batch-upgrade', '--upgrade-list', `v2:${sim.bin('v2')}:${h1},v3:${sim.bin('v3')}:${h2}`]);
  assert.equal(add.code, 0, add.stderr);
  assert.match(add.stderr, /not checked against the chain/);
  assert.deepEqual(
    (await batchOf(sim.home)).map((p) => [p.name, p.height]),
    [
      ['v2', h1],
      ['v3', h2],
    ],
  );

  const first = sim.run();
  const v2 = await first.nodeOf('v2');
  assert.deepEqual(await batchOf(sim.home).then((b) => b.map((p) => p.name)), ['v3']);
  await waitFor(async () => (await heightOf(v2).catch(() => 0)) >= h1 + 3, 'v2 producing blocks');
  assert.deepEqual(handover(first.output(), 'genesis', 'v2'), { lastOld: h1, firstNew: h1 + 1 });
  assert.match(first.output(), new RegExp(`--halt-height=${h1}`));

  // chainvisor restarted between the two queued upgrades: the queue is in the file.
  assert.equal(await first.stop(), 0, first.output());
  const second = sim.run();
  const v3 = await second.nodeOf('v3');
  await waitFor(async () => (await heightOf(v3).catch(() => 0)) >= h2 + 2, 'v3 producing blocks');
  assert.deepEqual(handover(second.output(), 'v2', 'v3'), { lastOld: h2, firstNew: h2 + 1 });
  assert.equal(await readlink(path.join(sim.home, 'cosmovisor', 'current')), path.join('upgrades', 'v3'));
  assert.deepEqual(await batchOf(sim.home), []);
  assert.equal(await second.stop(), 0);
});

for (const haltMode of ['exit', 'stay'] as const) {
  test(`add-upgrade --upgrade-height while run is active (node ${haltMode === 'stay' ? 'stays up' : 'exits'} at the halt); a passed height is refused`, async (t) => {
    const sim = await chainvisorSim(t, ['genesis', 'v2']);
    const run = sim.run(haltMode === 'stay' ? ['--halt-mode', 'stay'] : []);
    const genesis = await run.nodeOf('genesis');
    await waitFor(async () => (await heightOf(genesis).catch(() => 0)) >= 5, 'genesis blocks');

    const passed = await sim.cv(['add-upgrade', 'v2', sim.bin('v2'), '--upgrade-height', '2']);
    assert.equal(passed.code, 64, passed.stderr);
    assert.match(passed.stderr, /already at height \d+/);
    assert.deepEqual(await batchOf(sim.home), []);

    const h = (await heightOf(genesis)) + 150;
    const add = await sim.cv(['add-upgrade', 'v2', sim.bin('v2'), '--upgrade-height', String(h), '--restart-now']);
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /the node is at height \d+/);

    const v2 = await run.nodeOf('v2');
    await waitFor(async () => (await heightOf(v2).catch(() => 0)) >= h + 2, `v2 past ${h + 2}`, 60_000);
    assert.deepEqual(handover(run.output(), 'genesis', 'v2'), { lastOld: h, firstNew: h + 1 });
    assert.deepEqual(await batchOf(sim.home), []);
    assert.equal(await run.stop(), 0);
  });
}

test('a batch edited while running: the node restarts only when the first queued height changes', async (t) => {
  const sim = await chainvisorSim(t, ['genesis', 'v2', 'v3']);
  const run = sim.run();
  const genesis = await run.nodeOf('genesis');
  await waitFor(async () => (await heightOf(genesis).catch(() => 0)) >= 3, 'genesis blocks');
  const far = (await heightOf(genesis)) + 5000;
  // The simulated node signs with a local key: the restart needs the go-ahead.
  const add = await sim.cv(['add-upgrade', 'v2', sim.bin('v2'), '--upgrade-height', String(far), '--restart-now']);
  assert.equal(add.code, 0, add.stderr);
  await waitFor(() => run.output().includes(`--halt-height=${far}`), 'a restart with the first halt height');
  const restarts = () => run.output().split('restarting the node with a new halt height').length - 1;
  assert.equal(restarts(), 1);

  // A later entry does not change the first height: no restart.
  const later = await sim.cv(['add-upgrade', 'v3', sim.bin('v3'), '--upgrade-height', String(far + 100)]);
  assert.equal(later.code, 0, later.stderr);
  await waitFor(() => new RegExp(`v3\\W{0,3} queued at height ${far + 100}`).test(run.output()), 'the new entry seen');
  assert.equal(restarts(), 1);

  // Editing the file by hand to bring v2 closer: the node restarts with the new height and v2 takes over there.
  const queue = await batchOf(sim.home);
  const near = (await heightOf(await run.nodeOf('genesis'))) + 150;
  const edited = queue.map((p) => (p.name === 'v2' ? { ...p, height: near } : p));
  await writeFile(path.join(sim.home, 'data', 'upgrade-info.json.batch'), JSON.stringify(edited));
  const v2 = await run.nodeOf('v2');
  assert.equal(restarts(), 2);
  await waitFor(async () => (await heightOf(v2).catch(() => 0)) >= near + 2, `v2 past ${near + 2}`, 60_000);
  assert.deepEqual(handover(run.output(), 'genesis', 'v2'), { lastOld: near, firstNew: near + 1 });
  assert.deepEqual(
    (await batchOf(sim.home)).map((p) => p.name),
    ['v3'],
  );
  // Every block was committed once, by one binary.
  const by = committedBy(run.output());
  assert.ok([...by.keys()].every((h) => (h <= near ? by.get(h) === 'genesis' : by.get(h) === 'v2')));
  assert.equal(await run.stop(), 0);
});

test('chainvisor stopped while the node sat halted at H: the next start applies the upgrade, the new binary commits H+1', async (t) => {
  const sim = await chainvisorSim(t, ['genesis', 'v2']);
  const h = 30;
  const add = await sim.cv(['add-upgrade', 'v2', sim.bin('v2'), '--upgrade-height', String(h)]);
  assert.equal(add.code, 0, add.stderr);
  // The old binary ran to its halt height on its own (as when chainvisor died right at the halt).
  const alone = await execa(sim.bin('genesis'), ['start', '--home', sim.home, ...sim.nodeFlags, `--halt-height=${h}`], { reject: false, timeout: 60_000 });
  assert.equal(alone.exitCode, 0, alone.stderr);
  assert.equal(Math.max(...committedBy(alone.stderr).keys()), h);

  const run = sim.run();
  const v2 = await run.nodeOf('v2');
  await waitFor(async () => (await heightOf(v2).catch(() => 0)) >= h + 2, `v2 past ${h + 2}`, 60_000);
  const by = committedBy(run.output());
  assert.equal(Math.min(...[...by].filter(([, v]) => v === 'v2').map(([height]) => height)), h + 1);
  assert.equal([...by].filter(([, v]) => v === 'genesis').length, 0, 'the old binary committed nothing more');
  assert.deepEqual(await batchOf(sim.home), []);
  assert.equal(await run.stop(), 0);
});

test('a manual upgrade at the height of a governance plan is refused before it happens', async (t) => {
  const sim = await chainvisorSim(t, ['genesis', 'v2'], {}, ['--voting-period', '500ms', '--deposit-period', '500ms', '--auto-vote']);
  const run = sim.run(['--halt-mode', 'stay']);
  const genesis = await run.nodeOf('genesis');
  await waitFor(async () => (await heightOf(genesis).catch(() => 0)) >= 2, 'genesis blocks');
  // Far enough that the commands and the restart below never reach it, however slow the machine: nothing waits for it.
  const g = (await heightOf(genesis)) + 4000;
  const { id } = await proposeUpgrade(sim.bin('genesis'), sim.home, { name: 'gov-v2', height: g, extra: ['--no-validate'] });
  await waitForProposal(sim.bin('genesis'), sim.home, id, /PASSED/);
  const clash = await sim.cv(['add-upgrade', 'v2', sim.bin('v2'), '--upgrade-height', String(g)]);
  assert.equal(clash.code, 64, clash.stderr);
  assert.match(clash.stderr, new RegExp(`governance already plans upgrade "gov-v2" at that height`));
  assert.deepEqual(await batchOf(sim.home), []);
  // One block earlier is another height: accepted.
  const before = await sim.cv(['add-upgrade', 'v2', sim.bin('v2'), '--upgrade-height', String(g - 1), '--yes']);
  assert.equal(before.code, 0, before.stderr);
  // Governance then moves its plan onto the queued height: run reports the clash before the height.
  await waitFor(() => run.output().includes(`--halt-height=${g - 1}`), 'the node restarted with the queued halt height');
  await run.nodeOf('genesis');
  const second = await proposeUpgrade(sim.bin('genesis'), sim.home, { name: 'gov-v3', height: g - 1, extra: ['--no-validate'] });
  await waitForProposal(sim.bin('genesis'), sim.home, second.id, /PASSED/);
  await waitFor(() => run.output().includes('CHAINVISOR_BATCH_GOV_CLASH'), 'the clash reported by run');
  assert.ok((await heightOf(await run.nodeOf('genesis'))) < g - 1, 'reported before the height');
  assert.equal(await run.stop(), 0);
});
