/**
 * The lifecycle table of docs/upgrade-module.md walked against real processes from the node's own CLI, default halt mode
 * (exit): proposal → scheduled → halt with upgrade-info.json → same binary halts again → a failing
 * handler commits nothing → v2 applies at that height and goes on → restart applies no store upgrade
 * twice → the old binary refuses to run (wrong app version).
 */
import assert from 'node:assert/strict';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

import { Comet38Client } from '@cosmjs/tendermint-rpc';

import { cli, cliJson, proposeUpgrade, readUpgradeInfoFile, runNodeToExit, simFixture, startNode, waitForProposal } from '../support/node-harness.js';

test('upgrade lifecycle, halt mode exit', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const genesis = fx.bin('genesis');
  const v2 = fx.bin('v2');
  const info = fx.built.versions.v2?.info as string;

  const node = await startNode(t, genesis, home);
  await node.waitForHeight(2);
  // 300 blocks of 50 ms: room for the vote (500 ms) and the queries below on a loaded machine.
  const height = (await node.height()) + 300;
  const { id, stderr } = await proposeUpgrade(genesis, home, { name: 'v2', height, info });
  assert.doesNotMatch(stderr, /WARNING/); // 15 s ahead: room for 2 × (500 ms + 500 ms)
  await node.waitForLog(/proposal passed|proposal failed|proposal rejected/);
  const [passed, plan, text] = await Promise.all([
    waitForProposal(genesis, home, id, /PASSED|FAILED|REJECTED/),
    cliJson(genesis, ['query', 'upgrade', 'plan', '--home', home]),
    cli(genesis, ['query', 'upgrade', 'plan', '--home', home]),
  ]);
  assert.equal(passed.status, 'PROPOSAL_STATUS_PASSED', JSON.stringify(passed));
  assert.equal(passed.messages[0]['@type'], '/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade');
  assert.deepEqual(plan, { name: 'v2', time: '0001-01-01T00:00:00Z', height: String(height), info, upgraded_client_state: null });
  assert.match(text.stdout, new RegExp(`^height: "${height}"\\ninfo: .*\\nname: v2\\ntime: "0001-01-01T00:00:00Z"\\nupgraded_client_state: null\\n?$`));

  // The node halts at the height: exit 2, NEEDED on stderr, upgrade-info.json written (0600).
  const exit = await node.exit;
  assert.equal(exit.code, 2, node.log());
  assert.ok(node.log().includes(`ERR UPGRADE "v2" NEEDED at height: ${height}: ${info}`));
  assert.equal(await readUpgradeInfoFile(home), JSON.stringify({ name: 'v2', time: '0001-01-01T00:00:00Z', height, info }));
  assert.equal((await stat(path.join(home, 'data', 'upgrade-info.json'))).mode & 0o777, 0o600);
  await assert.rejects(access(path.join(home, 'config', 'addresses.json')));

  // Restarting the same binary halts again at once, at the same height.
  const again = await runNodeToExit(t, genesis, home);
  assert.equal(again.code, 2);
  assert.match(again.log, new RegExp(`starting node .*height=${height - 1} `));
  assert.match(again.log, /UPGRADE "v2" NEEDED at height/);

  // A failing handler: the node stops, nothing of the block is committed.
  const broken = await runNodeToExit(t, fx.bin('v2-broken'), home);
  assert.equal(broken.code, 2);
  assert.match(broken.log, /upgrade "v2" failed: migration of module bank failed/);

  // v2 applies the upgrade at that same height and keeps producing blocks.
  const upgraded = await startNode(t, v2, home);
  await upgraded.waitForHeight(height + 3);
  assert.match(upgraded.log(), new RegExp(`applying store upgrades for "v2" at height ${height} .*added=newmod`));
  assert.match(upgraded.log(), new RegExp(`applying upgrade "v2" at height: ${height}`));
  assert.match(upgraded.log(), /migrating module bank from version 4 to version 5/);

  const applied = await cli(v2, ['query', 'upgrade', 'applied', 'v2', '--home', home]);
  assert.equal(applied.code, 0, applied.stderr);
  const record = JSON.parse(applied.stdout);
  assert.equal(record.header.height, String(height));
  assert.equal(record.header.chain_id, 'sim-1');
  // Block H was proposed before the upgrade ran: its header keeps app 0; the version its
  // FinalizeBlock returned (1) is in the headers from H+1 on, as CometBFT's updateState applies it.
  assert.equal(record.header.version.app, '0');
  const comet = await Comet38Client.connect(upgraded.addresses.rpc.replace(/^tcp:/, 'http:'));
  t.after(() => comet.disconnect());
  assert.equal((await comet.block(height)).block.header.version.app, 0);
  const metas = (await comet.blockchain(height - 1, height + 1)).blockMetas;
  assert.deepEqual(
    metas.map((m) => [m.header.height, m.header.version.app]),
    [
      [height + 1, 1],
      [height, 0],
      [height - 1, 0],
    ],
  );
  assert.equal((await upgraded.http('rpc', `/header?height=${height}`)).body.result.header.version.app, '0');
  const results = async (h: number) => (await upgraded.http('rpc', `/block_results?height=${h}`)).body.result;
  assert.deepEqual((await results(height)).consensus_param_updates.version, { app: '1' });
  assert.deepEqual((await results(height - 1)).consensus_param_updates.version, {});
  const restHeader = async (h: number) => (await upgraded.http('api', `/cosmos/base/tendermint/v1beta1/blocks/${h}`)).body;
  assert.equal((await restHeader(height)).block.header.version.app, '0');
  assert.equal((await restHeader(height)).sdk_block.header.version.app, '0');
  assert.equal((await restHeader(height + 1)).block.header.version.app, '1');
  // The app version is the upgrade module's protocol version wherever the node reports it, except the
  // node info: CometBFT builds it once at start, when the upgrade had not run yet, so it says 0 until
  // a restart (below).
  assert.equal((await upgraded.http('rpc', '/abci_info')).body.result.response.app_version, '1');
  assert.equal((await upgraded.http('rpc', '/status')).body.result.node_info.protocol_version.app, '0');
  assert.match(record.header.time, /\.\d{9}Z$/);
  assert.match(record.block_id.hash, /^[0-9A-F]{64}$/);
  assert.equal(record.block_id.parts.total, 1);
  assert.match(record.block_size, /^\d+$/);
  assert.equal(record.num_txs, '0');
  for (const field of [
    'last_commit_hash',
    'data_hash',
    'validators_hash',
    'next_validators_hash',
    'consensus_hash',
    'app_hash',
    'last_results_hash',
    'evidence_hash',
    'proposer_address',
  ]) {
    assert.match(record.header[field], /^[0-9A-F]+$/, field);
  }
  assert.match(record.header.last_block_id.hash, /^[0-9A-F]{64}$/);
  // REST and gRPC-backed REST agree with the CLI on the height.
  assert.deepEqual((await upgraded.http('api', '/cosmos/upgrade/v1beta1/applied_plan/v2')).body, { height: String(height) });

  const versions = await cliJson<{ module_versions: Array<{ name: string; version: string }> }>(v2, ['query', 'upgrade', 'module_versions', '--home', home]);
  assert.deepEqual(Object.fromEntries(versions.module_versions.map((m) => [m.name, m.version])), {
    auth: '5',
    bank: '5',
    consensus: '1',
    gov: '5',
    newmod: '1',
    staking: '5',
    upgrade: '2',
  });
  assert.deepEqual(await cliJson(v2, ['query', 'upgrade', 'module_versions', 'bank', '--home', home]), { module_versions: [{ name: 'bank', version: '5' }] });
  const noPlan = await cli(v2, ['query', 'upgrade', 'plan', '--home', home]);
  assert.equal(noPlan.code, 1);
  assert.match(noPlan.stderr, /no upgrade scheduled/);

  // A restart of v2 does not apply the store upgrade again.
  assert.equal((await upgraded.stop()).code, 0);
  const restarted = await startNode(t, v2, home);
  await restarted.waitForHeight(height + 5);
  await restarted.waitForLog(/starting node/);
  assert.doesNotMatch(restarted.log(), /applying store upgrades|applying upgrade/);
  const stores = await cliJson<{ stores: Array<{ name: string; added_height: string }>; store_upgrades: Record<string, string> }>(v2, [
    'query',
    'stores',
    '--home',
    home,
  ]);
  assert.deepEqual(stores.store_upgrades, { v2: String(height) });
  assert.equal(stores.stores.find((s) => s.name === 'newmod')?.added_height, String(height));
  assert.equal((await restarted.http('rpc', '/status')).body.result.node_info.protocol_version.app, '1');
  assert.equal((await restarted.stop()).code, 0);

  // The genesis binary can no longer run this chain.
  const downgrade = await runNodeToExit(t, genesis, home);
  assert.equal(downgrade.code, 2);
  assert.match(downgrade.log, /wrong app version 1, upgrade handler is missing for v2 upgrade plan/);
});
