/**
 * What the scratch takes from the live home and what it makes of its own: the chain id and address
 * prefix read from a genesis file (streamed: `chain_id` after `app_state`, other `chain_id`s nested in
 * it), fresh keys, and the operator address derived from the fresh validator key.
 */
import assert from 'node:assert/strict';
import { createHash, createPrivateKey, createPublicKey } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { bech32 } from '@scure/base';

import { newScratchKeys, operatorAddress } from '../../src/rehearsal/keys.js';
import { readGenesisFacts } from '../../src/shared/fsread/index.js';

test('genesis: the top-level chain_id even after app_state and nested chain_ids; the prefix of the first address', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-genesis-'));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  const account = bech32.encode('osmo', bech32.toWords(Buffer.alloc(20, 7)));
  const big = 'q'.repeat(3 * 1024 * 1024); // spans several read chunks
  const genesis = `{"app_hash":"","app_state":{"ibc":{"client_genesis":{"clients":[{"client_state":{"chain_id":"cosmoshub-4","x":"${big}"}}]}},"auth":{"accounts":[{"address":"${account}","note":"a \\"quoted\\" chain_id"}]}},"chain_id":"osmosis-1","initial_height":"1"}`;
  await fs.writeFile(path.join(dir, 'genesis.json'), genesis);
  assert.deepEqual(await readGenesisFacts(path.join(dir, 'genesis.json')), { status: 'ok', facts: { chainId: 'osmosis-1', prefix: 'osmo' } });
  await fs.writeFile(
    path.join(dir, 'valoper.json'),
    `{"chain_id":"x-1","app_state":{"staking":{"validators":[{"operator_address":"${operatorAddress('juno', Buffer.alloc(20, 1))}"}]}}}`,
  );
  assert.deepEqual(await readGenesisFacts(path.join(dir, 'valoper.json')), { status: 'ok', facts: { chainId: 'x-1', prefix: 'juno' } });
  await fs.writeFile(path.join(dir, 'none.json'), '{"chain_id":"sim-1","app_state":{}}');
  assert.deepEqual(await readGenesisFacts(path.join(dir, 'none.json')), { status: 'ok', facts: { chainId: 'sim-1', prefix: undefined } });
});

test('fresh keys: a working ed25519 validator key as CometBFT keeps it, its address, a node key; new every time', () => {
  const keys = newScratchKeys();
  const validator = JSON.parse(keys.validatorKeyJson) as { address: string; pub_key: { value: string }; priv_key: { type: string; value: string } };
  const priv = Buffer.from(validator.priv_key.value, 'base64');
  const pub = Buffer.from(validator.pub_key.value, 'base64');
  assert.equal(priv.length, 64);
  assert.deepEqual(priv.subarray(32), pub);
  const key = createPrivateKey({
    key: { kty: 'OKP', crv: 'Ed25519', d: priv.subarray(0, 32).toString('base64url'), x: pub.toString('base64url') },
    format: 'jwk',
  });
  assert.deepEqual(Buffer.from(createPublicKey(key).export({ format: 'jwk' }).x ?? '', 'base64url'), pub, 'the seed gives the public key');
  const address = createHash('sha256').update(pub).digest().subarray(0, 20);
  assert.equal(validator.address, address.toString('hex').toUpperCase());
  assert.deepEqual(keys.address, address);
  const other = newScratchKeys();
  assert.notEqual(other.validatorKeyJson, keys.validatorKeyJson);
  assert.notEqual(other.nodeKeyJson, keys.nodeKeyJson);
  const decoded = bech32.decode(operatorAddress('cosmos', keys.address));
  assert.equal(decoded.prefix, 'cosmosvaloper');
  assert.deepEqual(Buffer.from(bech32.fromWords(decoded.words)), address);
});
