/**
 * CHAINVISOR_REHEARSE=true under `chainvisor run` on the simulated chain (issue #19): a plan scheduled on
 * chain with its binary installed is rehearsed once in the background, its result a webhook
 * (`rehearsal-passed`/`rehearsal-failed`), the metrics `chainvisor_rehearsal_result` and
 * `chainvisor_rehearsal_migration_seconds`, and `/status`; a rehearsal that cannot finish before the
 * upgrade is near is given up, its scratch removed; the live node runs on throughout.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { upgradeInfoFor } from '@chainvisor/simd';
import { proposeUpgrade, waitFor } from '@chainvisor/simd/testing';

import { chainvisorSim, heightOf } from '../support/chainvisor-sim.js';
import { unusedPort } from '../support/ports.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

const variants = { 'v2-panics': { from: 'v2', handlerPanic: 'always' }, 'v2-slow': { from: 'v2', handlerDelay: '30s' } };

async function setUp(t: TestContext, v2: string, env: Record<string, string>) {
  const sim = await chainvisorSim(t, ['genesis', 'v2'], env, ['--voting-period', '300ms', '--deposit-period', '300ms', '--auto-vote'], variants);
  const added = await sim.cv(['add-upgrade', 'v2', sim.bin(v2)]);
  assert.equal(added.code, 0, added.stderr);
  return sim;
}

const scratchLeft = async (home: string) => (await fs.readdir(path.join(home, 'cosmovisor'))).filter((n) => n.startsWith('.chainvisor-rehearsal-'));

for (const [v2, result, value] of [
  ['v2', 'passed', 1],
  ['v2-panics', 'failed', 0],
] as const) {
  test(`CHAINVISOR_REHEARSE=true: a staged ${v2} is rehearsed once in the background: ${result}, a webhook, the metrics, /status`, async (t) => {
    const receiver = await startWebhookReceiver();
    t.after(() => receiver.close());
    const http = `127.0.0.1:${await unusedPort()}`;
    const sim = await setUp(t, v2, {
      CHAINVISOR_REHEARSE: 'true',
      CHAINVISOR_WEBHOOK_URL: receiver.url,
      CHAINVISOR_HTTP_ADDRESS: http,
      CHAINVISOR_STAGE_WARN_BLOCKS: '20',
    });
    const run = sim.run();
    const live = await run.nodeOf('genesis');
    const start = await heightOf(live);
    await proposeUpgrade(sim.bin('genesis'), sim.home, {
      name: 'v2',
      height: start + 1000,
      info: upgradeInfoFor(sim.built.versions.v2!, 'http://127.0.0.1:9/'),
    });
    await waitFor(
      () => receiver.delivered().find((r) => String(r.body.event).startsWith('rehearsal-')),
      `a rehearsal webhook\n${run.output().slice(-3000)}`,
      60_000,
    );
    const hook = receiver.delivered().find((r) => String(r.body.event).startsWith('rehearsal-'))!;
    assert.equal(hook.body.event, `rehearsal-${result}`);
    assert.equal((hook.body.upgrade as { name: string }).name, 'v2');
    assert.equal((hook.body.upgrade as { height: number }).height, start + 1000, "the plan's height, not the scratch testnet's");
    const metrics = await (await fetch(`http://${http}/metrics`)).text();
    assert.match(metrics, new RegExp(`chainvisor_rehearsal_result\\{upgrade="v2"\\} ${value}`));
    if (result === 'passed') assert.match(metrics, /chainvisor_rehearsal_migration_seconds\{upgrade="v2"\} \d/);
    const status = (await (await fetch(`http://${http}/status`)).json()) as { rehearsals: { upgrade: string; result: string }[] };
    assert.equal(status.rehearsals[0]?.result, result);
    if (result === 'failed') assert.match(run.output(), /"level":50.*rehearsal of upgrade \\"v2\\" FAILED/);
    // Once per binary: no second rehearsal while it stays the same.
    await waitFor(async () => (await heightOf(live)) > start + 60, 'more blocks');
    assert.equal(receiver.delivered().filter((r) => String(r.body.event).startsWith('rehearsal-')).length, 1);
    assert.equal((await run.nodeOf('genesis')).pid, live.pid);
    assert.deepEqual(await scratchLeft(sim.home), []);
    await run.stop();
  });
}

test('CHAINVISOR_REHEARSE=true: a rehearsal still running when the upgrade is CHAINVISOR_STAGE_WARN_BLOCKS away is given up, its scratch removed', async (t) => {
  const sim = await setUp(t, 'v2-slow', { CHAINVISOR_REHEARSE: 'true', CHAINVISOR_STAGE_WARN_BLOCKS: '300' });
  const run = sim.run();
  const live = await run.nodeOf('genesis');
  const start = await heightOf(live);
  // 600 blocks of 50 ms: the rehearsal starts (it must, more than 300 blocks before the height: 15 s for the proposal
  // and its vote on a loaded machine), and is given up 300 blocks before the height (its handler works 30 s).
  await proposeUpgrade(sim.bin('genesis'), sim.home, { name: 'v2', height: start + 600, info: upgradeInfoFor(sim.built.versions.v2!, 'http://127.0.0.1:9/') });
  await waitFor(() => /rehearsing upgrade \\"v2\\"/.test(run.output()), `the rehearsal to start\n${run.output().slice(-3000)}`, 30_000);
  await waitFor(() => /giving up the rehearsal of upgrade \\"v2\\"/.test(run.output()), `the rehearsal to be given up\n${run.output().slice(-3000)}`, 30_000);
  await waitFor(async () => (await scratchLeft(sim.home)).length === 0, 'the scratch removed');
  assert.ok((await heightOf(live)) < start + 600, 'given up and cleaned before the upgrade height');
  assert.equal(run.output().match(/giving up the rehearsal/g)?.length, 1);
  await assert.rejects(fs.access(path.join(sim.home, 'cosmovisor', '.chainvisor', 'rehearsals.json')));
  assert.equal((await run.nodeOf('genesis')).pid, live.pid);
  await run.stop(); // before the temp folder goes: run keeps writing its status file
});
