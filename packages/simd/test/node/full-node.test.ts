/**
 * A home whose validator key is no validator's (`init --sim-full-node`): the chain still makes blocks,
 * `status` shows the home's own key with voting power 0, neither the validator set nor staking holds
 * that key, and the node signs nothing (its priv_validator_state.json stays at height 0). The same
 * home made without the flag is the validator.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

import { consensusAddress } from '../../src/chain/consensus-key.js';
import { simFixture, startNode } from '../support/node-harness.js';

async function homeKey(home: string): Promise<{ address: string; pubKey: string }> {
  const file = JSON.parse(await readFile(path.join(home, 'config', 'priv_validator_key.json'), 'utf8')) as { pub_key: { value: string } };
  return { address: consensusAddress(Buffer.from(file.pub_key.value, 'base64')), pubKey: file.pub_key.value };
}

const signedHeight = async (home: string) =>
  (JSON.parse(await readFile(path.join(home, 'data', 'priv_validator_state.json'), 'utf8')) as { height: string }).height;

test('init --sim-full-node: blocks go on, the home key has no power, is in no set, and signs nothing', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome(['--sim-full-node']);
  const own = await homeKey(home);
  const node = await startNode(t, fx.bin('genesis'), home);
  await node.waitForHeight(3);

  const status = (await node.http('rpc', '/status')).body.result;
  assert.deepEqual(status.validator_info, { address: own.address, pub_key: { type: 'tendermint/PubKeyEd25519', value: own.pubKey }, voting_power: '0' });
  const set = (await node.http('rpc', '/validators')).body.result.validators as Array<{ address: string; voting_power: string }>;
  assert.equal(set.length, 1);
  assert.notEqual(set[0]?.address, own.address);
  const staking = (await node.http('api', '/cosmos/staking/v1beta1/validators')).body.validators as Array<{ consensus_pubkey: { key: string } }>;
  assert.equal(staking.length, 1);
  assert.notEqual(staking[0]?.consensus_pubkey.key, own.pubKey);
  assert.equal(await signedHeight(home), '0');
  assert.match(node.log(), /this home's validator key is not in the validator set: a full node/);
  assert.equal((await node.stop()).code, 0);
});

test('without the flag the home key is the validator: power in status, in the set and staking, and it signs', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome([]);
  const own = await homeKey(home);
  const node = await startNode(t, fx.bin('genesis'), home);
  await node.waitForHeight(3);
  const status = (await node.http('rpc', '/status')).body.result;
  assert.deepEqual([status.validator_info.address, status.validator_info.voting_power], [own.address, '1000000']);
  const set = (await node.http('rpc', '/validators')).body.result.validators as Array<{ address: string }>;
  assert.deepEqual(
    set.map((v) => v.address),
    [own.address],
  );
  const staking = (await node.http('api', '/cosmos/staking/v1beta1/validators')).body.validators as Array<{ consensus_pubkey: { key: string } }>;
  assert.equal(staking[0]?.consensus_pubkey.key, own.pubKey);
  assert.notEqual(await signedHeight(home), '0');
  assert.equal((await node.stop()).code, 0);
});
