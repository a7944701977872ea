/**
 * A plan cancelled, then moved, on the simulated chain under `chainvisor run` (issue #45, item 4):
 * a passed MsgCancelUpgrade is `upgrade-cancelled` at the webhook, nothing is switched at the old height
 * (the node runs on past it), the staged binary stays on disk, marked not planned in `status`, and the
 * ETA metric drops the upgrade; the same plan proposed again takes that binary back with no second
 * download; a passed proposal moving its height is `upgrade-rescheduled` at the webhook, `status` and
 * the ETA follow it, and the switch happens at the new height.
 */
import assert from 'node:assert/strict';
import { readlink } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

import { upgradeInfoFor } from '@chainvisor/simd';
import { cli, proposeCancel, proposeUpgrade, waitFor, waitForProposal } from '@chainvisor/simd/testing';

import { endpointOf } from '../support/observe-kit.js';
import { makeChain, runChainvisor, serveFiles } from '../support/staging-chain.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

interface Status {
  pending: { name: string; height: number } | null;
  staged: Array<{ name: string; planned?: boolean; cancelledAt?: string }>;
}

const etaOf = (metrics: string, name: string) => new RegExp(`^chainvisor_upgrade_eta_seconds\\{name="${name}"\\} `, 'm').test(metrics);

test('a passed cancel: no switch at the old height, upgrade-cancelled sent, the binary kept; a moved height: upgrade-rescheduled sent, the switch at the new height', async (t) => {
  const chain = await makeChain(t);
  const server = await serveFiles(t, chain.built.out);
  const hook = await startWebhookReceiver();
  t.after(() => hook.close());
  const run = runChainvisor(t, chain, { CHAINVISOR_WEBHOOK_URL: hook.url, CHAINVISOR_HTTP_ADDRESS: '127.0.0.1:0' });
  const endpoint = await endpointOf(chain);
  const status = async () => (await (await fetch(`${endpoint}/status`)).json()) as Status;
  const metrics = async () => (await fetch(`${endpoint}/metrics`)).text();
  const hooked = (event: string) => hook.delivered().filter((r) => r.body.event === event);
  const genesis = await run.nodeOf('genesis');
  const bin = chain.built.versions.genesis!.bin;
  const info = upgradeInfoFor(chain.built.versions.v2!, server.url);

  // Scheduled and staged; its ETA known once a few heights have been read.
  // 250 blocks of 100 ms: room for the staging, the ETA and the cancel's proposal and vote on a loaded machine.
  const first = (await run.height(genesis)) + 250;
  await proposeUpgrade(bin, chain.home, { name: 'v2', height: first, info });
  await waitFor(() => run.events('binary-staged').length > 0, `binary-staged\n${run.output()}`);
  await waitFor(async () => etaOf(await metrics(), 'v2'), 'the ETA of v2');
  const bytes = server.bytes();

  // Cancelled by governance before its height.
  await proposeCancel(bin, chain.home, { summary: 'the binary is wrong' });
  await waitFor(() => hooked('upgrade-cancelled').length > 0, `upgrade-cancelled at the webhook\n${run.output()}`);
  const cancelled = hooked('upgrade-cancelled')[0]?.body;
  assert.deepEqual(cancelled?.upgrade, { name: 'v2', height: first });
  assert.match(String(cancelled?.text), new RegExp(`cancelled on chain: nothing will be switched at height ${first}`));
  await waitFor(async () => (await status()).staged.some((s) => s.name === 'v2' && s.planned === false), `v2 listed as not planned\n${run.output()}`);
  const after = await status();
  assert.equal(after.pending, null);
  assert.ok(after.staged.find((s) => s.name === 'v2')?.cancelledAt);
  assert.equal(etaOf(await metrics(), 'v2'), false, 'the ETA metric drops the cancelled upgrade');

  // Nothing is switched at the old height: the genesis node runs on past it.
  await waitFor(async () => (await run.height(genesis)) > first + 10, `the chain past height ${first + 10}`, 60_000);
  assert.equal(run.events('upgrade-detected').length, 0, run.output());
  assert.equal(await readlink(path.join(chain.home, 'cosmovisor', 'current')), 'genesis');
  assert.ok(
    (await status()).staged.some((s) => s.name === 'v2' && s.planned === false),
    'still on disk, not planned',
  );

  // The same plan proposed again: the kept binary is its own, not downloaded again.
  const second = (await run.height(genesis)) + 250;
  await proposeUpgrade(bin, chain.home, { name: 'v2', height: second, info });
  await waitFor(() => run.events('binary-staged').length > 1, `staged again\n${run.output()}`);
  assert.equal(run.events('binary-staged')[1]?.status, 'staged');
  assert.equal(server.bytes(), bytes, 'no second download');
  await waitFor(async () => (await status()).staged.every((s) => s.planned === undefined), 'v2 planned again');

  // Moved 40 blocks later by another proposal.
  const moved = second + 40;
  const { id } = await proposeUpgrade(bin, chain.home, { name: 'v2', height: moved, info });
  await waitForProposal(bin, chain.home, id, /PASSED/);
  await waitFor(() => hooked('upgrade-rescheduled').length > 0, `upgrade-rescheduled at the webhook\n${run.output()}`);
  const rescheduled = hooked('upgrade-rescheduled')[0]?.body;
  assert.deepEqual(rescheduled?.upgrade, { name: 'v2', height: moved });
  assert.equal(rescheduled?.from, second);
  assert.deepEqual((await status()).pending?.height, moved);
  await waitFor(async () => etaOf(await metrics(), 'v2'), 'the ETA of v2 at its new height');

  // The switch happens at the new height, not the old one.
  const v2 = await run.nodeOf('v2', 90_000);
  await waitFor(async () => (await run.height(v2).catch(() => 0)) > moved, `v2 past height ${moved}\n${run.output()}`, 60_000);
  assert.deepEqual(
    run.events('upgrade-detected').map((e) => e.height),
    [moved],
  );
  const applied = await cli(chain.built.versions.v2!.bin, ['query', 'upgrade', 'applied', 'v2', '--home', chain.home]);
  assert.equal(applied.code, 0, applied.stderr);
  assert.equal((JSON.parse(applied.stdout) as { header: { height: string } }).header.height, String(moved));
  assert.equal(await readlink(path.join(chain.home, 'cosmovisor', 'current')), path.join('upgrades', 'v2'));
  assert.equal(server.bytes(), bytes, 'nothing downloaded at the halt');
});
