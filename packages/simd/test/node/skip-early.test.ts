/** Skip heights (`--unsafe-skip-upgrades h1 h2`) and a binary started before its plan is due. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { cli, proposeUpgrade, runNodeToExit, simFixture, startNode, waitForProposal } from '../support/node-harness.js';

test('a skip height clears the plan without a done marker; a new binary started early refuses to run', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const genesis = fx.bin('genesis');
  const info = fx.built.versions.v2?.info as string;

  // Height 300 (15 s of 50 ms blocks): room for the proposal's command and its vote on a loaded machine.
  const node = await startNode(t, genesis, home, ['--unsafe-skip-upgrades', '300', '301']);
  const { id } = await proposeUpgrade(genesis, home, { name: 'v2', height: 300, info });
  await waitForProposal(genesis, home, id, /PASSED/);
  await node.waitForLog(/INF UPGRADE "v2" SKIPPED at 300: /);
  await node.waitForHeight(302);
  const plan = await cli(genesis, ['query', 'upgrade', 'plan', '--home', home]);
  assert.match(plan.stderr, /no upgrade scheduled/);
  const applied = await cli(genesis, ['query', 'upgrade', 'applied', 'v2', '--home', home]);
  assert.equal(applied.code, 1);
  assert.equal(applied.stderr.trim(), 'Error: no upgrade found');

  // Scheduled again far ahead, then the operator swaps in v2 too early.
  const far = await proposeUpgrade(genesis, home, { name: 'v2', height: (await node.height()) + 1000, info });
  await waitForProposal(genesis, home, far.id, /PASSED/);
  assert.equal((await node.stop()).code, 0);
  const early = await runNodeToExit(t, fx.bin('v2'), home);
  assert.equal(early.code, 2);
  assert.match(early.log, /ERR BINARY UPDATED BEFORE TRIGGER! UPGRADE "v2" - in binary but not executed on chain\. Downgrade your binary/);

  // Back on the right binary the chain goes on.
  const back = await startNode(t, genesis, home);
  await back.waitForHeight((await back.height()) + 2);
  assert.equal((await back.stop()).code, 0);
});
