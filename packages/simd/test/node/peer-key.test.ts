/**
 * `--sim-peer-key` (issue #32): a second home with the same chain id plays "the network", one of its
 * simulated peers signing with the first home's validator key — what the network looks like while a
 * second machine runs that key. Within `--sim-peer-key-from`/`-until` its address is in the commits
 * (`block_id_flag` 2); outside them it is absent, as a validator whose node is stopped.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

import { cli, simFixture, type SimNode, startNode } from '../support/node-harness.js';

async function rpc(node: SimNode, urlPath: string): Promise<any> {
  const { status, body } = await node.http('rpc', urlPath);
  assert.equal(status, 200, JSON.stringify(body));
  return body.result;
}

test("--sim-peer-key: the other home's validator is in the set and signs the heights of its window only", async (t) => {
  const fx = await simFixture(t, { versions: ['genesis'] });
  const validatorHome = await fx.initHome();
  const keyFile = path.join(validatorHome, 'config', 'priv_validator_key.json');
  const address = (JSON.parse(await readFile(keyFile, 'utf8')) as { address: string }).address;
  const network = await startNode(t, fx.bin('genesis'), await fx.initHome(), [
    '--sim-peers-power',
    '3000000',
    '--sim-peer-key',
    keyFile,
    '--sim-peer-key-from',
    '3',
    '--sim-peer-key-until',
    '5',
  ]);
  await network.waitForHeight(7);

  const set = (await rpc(network, '/validators')).validators.map((v: { address: string }) => v.address);
  assert.equal(set.length, 11);
  assert.ok(set.includes(address), `${address} is in the set ${set.join(', ')}`);
  assert.equal((await rpc(network, '/status')).node_info.network, 'sim-1', 'the same chain id as the validator home');
  const signedAt = async (height: number) => {
    const signatures = (await rpc(network, `/commit?height=${height}`)).signed_header.commit.signatures as {
      block_id_flag: number;
      validator_address: string;
    }[];
    assert.equal(signatures.length, 11);
    return signatures.some((s) => s.block_id_flag === 2 && s.validator_address === address);
  };
  assert.deepEqual(await Promise.all([1, 2, 3, 4, 5, 6, 7].map(signedAt)), [false, false, true, true, true, false, false]);
  await network.stop();
});

test("--sim-peer-key is refused without peers, with a window alone, and for the node's own key", async (t) => {
  const fx = await simFixture(t, { versions: ['genesis'] });
  const home = await fx.initHome();
  const own = path.join(home, 'config', 'priv_validator_key.json');
  const other = path.join(await fx.initHome(), 'config', 'priv_validator_key.json');
  const start = (args: string[]) => cli(fx.bin('genesis'), ['start', '--home', home, '--rpc.laddr', 'tcp://127.0.0.1:0', '--grpc.enable=false', ...args]);

  const noPeers = await start(['--sim-peer-key', other]);
  assert.equal(noPeers.code, 1);
  assert.match(noPeers.stderr, /--sim-peer-key needs --sim-peers-power/);
  const windowOnly = await start(['--sim-peers-power', '100', '--sim-peer-key-from', '3']);
  assert.equal(windowOnly.code, 1);
  assert.match(windowOnly.stderr, /need --sim-peer-key/);
  const missing = await start(['--sim-peers-power', '100', '--sim-peer-key', path.join(home, 'none.json')]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /--sim-peer-key .*none\.json: no such file/);
  const self = await start(['--sim-peers-power', '100', '--sim-peer-key', own]);
  assert.equal(self.code, 1);
  assert.match(self.stderr, /--sim-peer-key is this node's own validator key/);
});
