/**
 * `add-upgrade --upgrade-height` while `run` is active on a validator (the simulated node signs with a
 * local key, config/priv_validator_key.json): the command says what happens to the node before `run`
 * acts; without --yes or --restart-now the node is not restarted, the entry waits for its next start, and
 * `run` still stops it when it reports the height; with the go-ahead it is restarted with --halt-height.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { waitFor } from '@chainvisor/simd/testing';

import { chainvisorSim, handover, heightOf } from '../support/chainvisor-sim.js';

const batchOf = async (home: string) =>
  JSON.parse(await readFile(path.join(home, 'data', 'upgrade-info.json.batch'), 'utf8').catch(() => '[]')) as Array<Record<string, unknown>>;

const restarts = (output: string) => output.split('restarting the node with a new halt height').length - 1;

test('on a validator, no restart without --restart-now: queued, explained, and still applied when the node reports the height', async (t) => {
  const sim = await chainvisorSim(t, ['genesis', 'v2']);
  // Blocks of 2 s: the height watch (every 300 ms) stops the node at H before it commits H+1, even on a loaded machine.
  const run = sim.run(['--block-time', '2s', '--halt-mode', 'stay']);
  const genesis = await run.nodeOf('genesis');
  await waitFor(async () => (await heightOf(genesis).catch(() => 0)) >= 2, 'genesis blocks');
  const h = (await heightOf(genesis)) + 8;
  const add = await sim.cv(['add-upgrade', 'v2', sim.bin('v2'), '--upgrade-height', String(h)]);
  assert.equal(add.code, 0, add.stderr);
  assert.match(add.stdout, /the node was NOT restarted: it signs with a local key \(.*priv_validator_key\.json\), and a restart needs --yes or --restart-now/);
  assert.match(add.stdout, /keeps running without --halt-height; chainvisor run \(pid \d+\) stops it when it reports height/);
  assert.match(add.stdout, new RegExp(`chainvisor add-upgrade v2 \\S+ --upgrade-height ${h} --force --restart-now`));
  assert.deepEqual(await batchOf(sim.home), [{ name: 'v2', height: h, wait_for_restart: true }]);
  await waitFor(() => run.output().includes('manual upgrade queued without a restart'), 'run sees the entry', 30_000);
  assert.equal(restarts(run.output()), 0, run.output());

  const v2 = await run.nodeOf('v2');
  await waitFor(async () => (await heightOf(v2).catch(() => 0)) >= h + 2, `v2 past ${h + 2}`, 60_000);
  assert.deepEqual(handover(run.output(), 'genesis', 'v2'), { lastOld: h, firstNew: h + 1 });
  assert.equal(restarts(run.output()), 0);
  assert.deepEqual(await batchOf(sim.home), []);
  assert.equal(await run.stop(), 0);
});

test('with --restart-now (or --yes) the command says the node restarts, and run restarts it with the new --halt-height', async (t) => {
  const sim = await chainvisorSim(t, ['genesis', 'v2', 'v3']);
  const run = sim.run();
  const genesis = await run.nodeOf('genesis');
  await waitFor(async () => (await heightOf(genesis).catch(() => 0)) >= 3, 'genesis blocks');
  const far = (await heightOf(genesis)) + 5000;
  const held = await sim.cv(['add-upgrade', 'v2', sim.bin('v2'), '--upgrade-height', String(far)]);
  assert.equal(held.code, 0, held.stderr);
  await waitFor(() => run.output().includes('manual upgrade queued without a restart'), 'run sees the entry', 30_000);

  const now = await sim.cv(['add-upgrade', 'v2', sim.bin('v2'), '--upgrade-height', String(far), '--force', '--restart-now']);
  assert.equal(now.code, 0, now.stderr);
  assert.match(now.stdout, new RegExp(`chainvisor run \\(pid \\d+\\) now RESTARTS the node to pass it --halt-height=${far}`));
  assert.deepEqual(await batchOf(sim.home), [{ name: 'v2', height: far }]);
  await waitFor(() => run.output().includes(`--halt-height=${far}`), 'a restart with the queued halt height', 30_000);
  assert.equal(restarts(run.output()), 1);

  // A later entry leaves the halt height as it is: said, and no restart, with or without --yes.
  const later = await sim.cv(['add-upgrade', 'v3', sim.bin('v3'), '--upgrade-height', String(far + 100), '--yes']);
  assert.equal(later.code, 0, later.stderr);
  assert.match(later.stdout, new RegExp(`the node keeps running: its halt height stays ${far}`));
  await sleep(2500);
  assert.equal(restarts(run.output()), 1);
  assert.equal(await run.stop(), 0);
});
