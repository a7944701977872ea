import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { consensusKey } from '../../src/chain/consensus-key.js';
import { defaultGenesis } from '../../src/chain/genesis.js';
import { initNodeConfig, loadOrGenValidatorKey, readNodeConfig } from '../../src/node/node-config.js';

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest();

test('init writes the moniker, a node key and a validator key, and keeps existing keys', async (t) => {
  const home = await mkdtemp(path.join(os.tmpdir(), 'sim-node-config-'));
  t.after(() => rm(home, { recursive: true, force: true }));
  const pubKey = await loadOrGenValidatorKey(home);
  await initNodeConfig(home, 'my "node"');
  const config = await readNodeConfig(home, { name: 'simd', chainId: 'sim-1' });
  assert.equal(config.moniker, 'my "node"');
  const nodeKey = JSON.parse(await readFile(path.join(home, 'config', 'node_key.json'), 'utf8')).priv_key;
  assert.equal(config.nodeId, sha256(Buffer.from(nodeKey.value, 'base64').subarray(32)).subarray(0, 20).toString('hex'));
  assert.equal((await stat(path.join(home, 'config', 'node_key.json'))).mode & 0o777, 0o600);
  assert.equal((await stat(path.join(home, 'config', 'priv_validator_key.json'))).mode & 0o777, 0o600);

  // A second init (--overwrite) changes the moniker and keeps both keys.
  assert.deepEqual(await loadOrGenValidatorKey(home), pubKey);
  await initNodeConfig(home, 'renamed');
  assert.deepEqual(await readNodeConfig(home, { name: 'simd', chainId: 'sim-1' }), { moniker: 'renamed', nodeId: config.nodeId });

  // The genesis records the key; the proposer address derives from it.
  const key = consensusKey(defaultGenesis({ consensusPubKey: pubKey }));
  assert.deepEqual(key.pubKey, pubKey);
  assert.equal(key.address, sha256(pubKey).subarray(0, 20).toString('hex').toUpperCase());

  await writeFile(path.join(home, 'config', 'node_key.json'), '{"priv_key":{"value":"AAAA"}}');
  await assert.rejects(readNodeConfig(home, { name: 'simd', chainId: 'sim-1' }), { code: 'SIM_NODE_KEY_INVALID' });

  // A config.toml that is not TOML stops the node, naming the file, rather than being read as no moniker.
  await writeFile(path.join(home, 'config', 'config.toml'), 'moniker = [\n');
  await assert.rejects(readNodeConfig(home, { name: 'simd', chainId: 'sim-1' }), (error: Error & { code?: string }) => {
    assert.equal(error.code, 'SIM_CONFIG');
    assert.match(error.message, /config\.toml is not valid TOML/);
    return true;
  });
});

test('a home from before these files keeps its identity: the binary name, the chain-derived id, the fixed key', async (t) => {
  const home = await mkdtemp(path.join(os.tmpdir(), 'sim-node-config-'));
  t.after(() => rm(home, { recursive: true, force: true }));
  assert.deepEqual(await readNodeConfig(home, { name: 'simd', chainId: 'sim-1' }), {
    moniker: 'simd',
    nodeId: sha256(Buffer.concat([Buffer.from('simd/node'), Buffer.from('sim-1')]))
      .toString('hex')
      .slice(0, 40),
  });
  const fixed = sha256('simd/consensus/validator');
  assert.deepEqual(consensusKey(defaultGenesis()), { pubKey: fixed, address: sha256(fixed).subarray(0, 20).toString('hex').toUpperCase() });
});
