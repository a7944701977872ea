/**
 * `--halt-mode stay`: at the upgrade height the node writes upgrade-info.json and stops producing
 * blocks but stays up, answering queries and refusing transactions, until it is signalled.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { cli, cliJson, proposeUpgrade, readUpgradeInfoFile, simFixture, startNode, waitFor } from '../support/node-harness.js';

test('stay mode: halted node keeps serving, block production stopped; v2 then applies the upgrade', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const genesis = fx.bin('genesis');
  const node = await startNode(t, genesis, home, ['--halt-mode', 'stay']);
  await node.waitForHeight(2);
  // 200 blocks of 50 ms: room for the proposal's command and its vote on a loaded machine.
  const height = (await node.height()) + 200;
  await proposeUpgrade(genesis, home, { name: 'v2', height, info: fx.built.versions.v2?.info });
  await node.waitForLog(/UPGRADE "v2" NEEDED at height: \d+/);
  await node.waitForLog(/block production stopped; the node keeps serving queries/);
  assert.equal(JSON.parse(await readUpgradeInfoFile(home)).height, height);

  // Still up: the last committed height stays below the upgrade height, queries answer.
  assert.equal(await node.height(), height - 1);
  await sleep(300);
  assert.equal(await node.height(), height - 1);
  const plan = await cliJson<{ name: string; height: string }>(genesis, ['query', 'upgrade', 'plan', '--home', home]);
  assert.deepEqual([plan.name, plan.height], ['v2', String(height)]);
  const query = await node.http('rpc', '/abci_query?path="/sim/node"');
  const state = JSON.parse(Buffer.from(query.body.result.response.value, 'base64').toString('utf8'));
  assert.deepEqual([state.halted.kind, state.halted.height], ['upgrade-needed', height]);
  const vote = await cli(genesis, ['tx', 'gov', 'vote', '1', 'yes', '--from', 'validator', '--home', home]);
  assert.equal(vote.code, 1);
  assert.match(vote.stderr, /does not produce blocks any more: UPGRADE "v2" NEEDED/);

  const exit = await node.stop();
  assert.equal(exit.code, 0, node.log());

  const v2 = await startNode(t, fx.bin('v2'), home, ['--halt-mode', 'stay']);
  await v2.waitForHeight(height + 2);
  const applied = JSON.parse((await cli(fx.bin('v2'), ['query', 'upgrade', 'applied', 'v2', '--home', home])).stdout);
  assert.equal(applied.header.height, String(height));
  await waitFor(async () => (await v2.stop()).code === 0, 'v2 to stop');
});
