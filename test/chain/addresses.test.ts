/**
 * Where chainvisor reads the chain, found as the node finds its own listen addresses: the node's flags
 * over config.toml/app.toml over the defaults, the operator's DAEMON_GRPC_ADDRESS and
 * CHAINVISOR_RPC_ADDRESS over all of them — but not the default value `chainvisor init` writes into
 * cosmovisor's config.toml.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { addressesFor, operatorEndpoints, resolveChainAddresses } from '../../src/chain/index.js';
import { loadConfig } from '../../src/config/index.js';

describe('chain addresses', () => {
  let home: string;
  before(async () => {
    home = await fs.mkdtemp(path.join(os.tmpdir(), 'chain-addresses-'));
    await fs.mkdir(path.join(home, 'config'));
  });
  after(() => fs.rm(home, { recursive: true, force: true }));

  const files = async (configToml: string | undefined, appToml: string | undefined) => {
    for (const [name, text] of [
      ['config.toml', configToml],
      ['app.toml', appToml],
    ] as const) {
      const file = path.join(home, 'config', name);
      if (text === undefined) await fs.rm(file, { force: true });
      else await fs.writeFile(file, text);
    }
  };

  test('no files, no flags: the SDK defaults', async () => {
    await files(undefined, undefined);
    assert.deepEqual(resolveChainAddresses({ home }), {
      grpc: { address: 'localhost:9090', source: 'default', enabled: true },
      rpc: { address: 'tcp://127.0.0.1:26657', source: 'default' },
    });
  });

  test("the node's files over the defaults; all interfaces dialled on loopback", async () => {
    await files('moniker = "x"\n[rpc]\nladdr = "tcp://0.0.0.0:36657"\n', '[grpc]\nenable = true\naddress = "0.0.0.0:19090"\n');
    assert.deepEqual(resolveChainAddresses({ home }), {
      grpc: { address: '127.0.0.1:19090', source: 'config/app.toml [grpc] address', enabled: true },
      rpc: { address: 'tcp://127.0.0.1:36657', source: 'config/config.toml [rpc] laddr' },
    });
    await files('[rpc]\nladdr = "unix:///run/node/rpc.sock"\n', '[grpc]\nenable = false\naddress = "localhost:9090"\n');
    assert.deepEqual(resolveChainAddresses({ home }), {
      grpc: { address: 'localhost:9090', source: 'config/app.toml [grpc] enable', enabled: false },
      rpc: { address: 'unix:///run/node/rpc.sock', source: 'config/config.toml [rpc] laddr' },
    });
  });

  test("the node's flags over its files, in both forms; the last one wins; `--` ends the flags", async () => {
    await files('[rpc]\nladdr = "tcp://127.0.0.1:36657"\n', '[grpc]\nenable = false\naddress = "localhost:19090"\n');
    const args = [
      'start',
      '--home',
      home,
      '--rpc.laddr',
      'tcp://127.0.0.1:1',
      '--rpc.laddr=tcp://127.0.0.1:46657',
      '--grpc.address=127.0.0.1:29090',
      '--grpc.enable',
    ];
    assert.deepEqual(resolveChainAddresses({ home, args }), {
      grpc: { address: '127.0.0.1:29090', source: 'flag --grpc.address', enabled: true },
      rpc: { address: 'tcp://127.0.0.1:46657', source: 'flag --rpc.laddr' },
    });
    const off = resolveChainAddresses({ home, args: ['start', '--grpc.enable=false', '--', '--grpc.enable=true'] });
    assert.deepEqual(off.grpc, { address: 'localhost:19090', source: 'flag --grpc.enable', enabled: false });
  });

  test("the operator's settings over the node's flags and files", async () => {
    await files('[rpc]\nladdr = "tcp://127.0.0.1:36657"\n', '[grpc]\nenable = false\n');
    const loaded = loadConfig({
      env: { DAEMON_HOME: home, DAEMON_NAME: 'simd', DAEMON_GRPC_ADDRESS: 'node-a:9191', CHAINVISOR_RPC_ADDRESS: 'unix:///run/rpc.sock' },
    });
    const addresses = addressesFor(loaded, ['start', '--rpc.laddr', 'tcp://127.0.0.1:5']);
    // An operator who names a gRPC address means it to be asked, even when app.toml turns gRPC off.
    assert.deepEqual(addresses, {
      grpc: { address: 'node-a:9191', source: 'DAEMON_GRPC_ADDRESS', enabled: true },
      rpc: { address: 'unix:///run/rpc.sock', source: 'CHAINVISOR_RPC_ADDRESS' },
    });
  });

  test("DAEMON_GRPC_ADDRESS at its default in cosmovisor's config.toml (as init writes it) does not hide app.toml", async () => {
    await files(undefined, '[grpc]\naddress = "localhost:19090"\n');
    const toml = path.join(home, 'cosmovisor.toml');
    const env = { DAEMON_HOME: home, DAEMON_NAME: 'simd' };
    await fs.writeFile(toml, "daemon_grpc_address = 'localhost:9090'\n");
    assert.deepEqual(operatorEndpoints(loadConfig({ env, cosmovisorConfigFile: toml })), {});
    assert.equal(addressesFor(loadConfig({ env, cosmovisorConfigFile: toml })).grpc.address, 'localhost:19090');
    await fs.writeFile(toml, "daemon_grpc_address = 'localhost:9999'\n");
    assert.deepEqual(operatorEndpoints(loadConfig({ env, cosmovisorConfigFile: toml })), {
      grpc: { address: 'localhost:9999', source: `daemon_grpc_address in ${toml}` },
    });
    // Set in the environment, even to the default value, it is the operator's choice.
    assert.deepEqual(operatorEndpoints(loadConfig({ env: { ...env, DAEMON_GRPC_ADDRESS: 'localhost:9090' } })), {
      grpc: { address: 'localhost:9090', source: 'DAEMON_GRPC_ADDRESS' },
    });
  });
});
