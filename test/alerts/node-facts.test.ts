import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { readNodeFacts } from '../../src/alerts/index.js';

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

  test('the moniker of config.toml and the chain id of client.toml', async () => {
    await write('config.toml', 'moniker = "val-eu-1"\n');
    await write('client.toml', 'chain-id = "cosmoshub-4"\n');
    await write('genesis.json', '{"chain_id":"not-this"}');
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
});
