/**
 * Who the alerts and the metrics say is speaking: the moniker, else the host name, and the chain id the
 * sign guard keys its record by (the genesis file config.toml names), else client.toml's.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { readChainId } from '../../src/chain/index.js';
import { nodeSigning } from '../../src/guard/index.js';
import { createMetrics } from '../../src/observe/metrics.js';
import { identityOf, readNodeFacts } from '../../src/observe/node-identity.js';
import { createEventBus } from '../../src/shared/events/index.js';

describe('node facts for alerts', () => {
  let home: string;
  beforeEach(async () => {
    home = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-facts-'));
    await fs.mkdir(path.join(home, 'config'));
  });
  afterEach(async () => {
    await fs.rm(home, { recursive: true, force: true });
  });
  const write = (name: string, text: string) => fs.writeFile(path.join(home, 'config', name), text);

  test("the moniker of config.toml; the genesis' chain id over client.toml's, which stands in when the genesis names none", async () => {
    await write('config.toml', 'moniker = "val-eu-1"\n');
    await write('client.toml', 'chain-id = "cosmoshub-4"\n');
    await write('genesis.json', '{"chain_id":"not-this"}');
    assert.deepEqual(await readNodeFacts(home, 'host-1'), { chainId: 'not-this', node: 'val-eu-1', home });
    await write('genesis.json', '{"genesis_time":"2026-01-01T00:00:00Z"}');
    assert.deepEqual(await readNodeFacts(home, 'host-1'), { chainId: 'cosmoshub-4', node: 'val-eu-1', home });
  });

  test("the genesis' top-level chain_id, not an IBC client's; the host name without a moniker", async () => {
    await write('client.toml', 'chain-id = ""\n');
    await write('genesis.json', JSON.stringify({ app_state: { ibc: { clients: [{ chain_id: 'other-1' }] } }, chain_id: 'testnet-7' }));
    assert.deepEqual(await readNodeFacts(home, 'host-1'), { chainId: 'testnet-7', node: 'host-1', home });
  });

  test('nothing readable: no chain id, the host name', async () => {
    await write('config.toml', 'moniker = [broken');
    await write('genesis.json', '{"chain_id": ');
    assert.deepEqual(await readNodeFacts(home, 'host-1'), { chainId: undefined, node: 'host-1', home });
  });

  test("config.toml's genesis_file: the alerts and the metrics' node info name the chain id the sign guard reads", async () => {
    await fs.mkdir(path.join(home, 'elsewhere'));
    await write('config.toml', 'moniker = "val-eu-1"\ngenesis_file = "elsewhere/real-genesis.json"\n');
    await write('genesis.json', '{"chain_id":"stale-1"}');
    await fs.writeFile(path.join(home, 'elsewhere', 'real-genesis.json'), '{"chain_id":"live-2"}');
    assert.equal(await readChainId((await nodeSigning(home)).genesisFile), 'live-2', "the sign guard's chain id");
    const facts = await readNodeFacts(home, 'host-1');
    assert.deepEqual(facts, { chainId: 'live-2', node: 'val-eu-1', home });
    const identity = Promise.resolve(identityOf(facts, 'gaiad'));
    const metrics = createMetrics({
      bus: createEventBus(),
      version: 't',
      snapshot: async () => ({ nodeUp: true, current: 'genesis', pending: null }),
      identity,
    });
    try {
      await identity;
      assert.match(await metrics.render(), /^chainvisor_node_info\{chain_id="live-2",node="val-eu-1",daemon_name="gaiad"\} 1$/m);
    } finally {
      metrics.close();
    }
  });
});
