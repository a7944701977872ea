/**
 * The scratch home's config (issue #19, item 2): a real CometBFT config.toml and SDK app.toml rewritten so
 * that every listener is on loopback, no peer is dialled, no remote signer is waited for, and every key
 * and data path is the scratch's; fresh keys; the live config folder untouched.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { parse } from 'smol-toml';

import { newScratchKeys } from '../../src/rehearsal/keys.js';
import { scratchAppToml, scratchConfigToml, writeScratchConfig } from '../../src/rehearsal/scratch-config.js';

const ports = { rpc: 30001, p2p: 30002, grpc: 30003, api: 30004, proxyApp: 30005 };

/** As `gaiad init` (CometBFT v0.38) writes it, with a validator's usual edits. */
const configToml = `
proxy_app = "tcp://127.0.0.1:26658"
moniker = "val-1"
db_backend = "goleveldb"
db_dir = "/var/lib/gaia/data"
genesis_file = "config/genesis.json"
priv_validator_key_file = "/etc/gaia/priv_validator_key.json"
priv_validator_state_file = "data/priv_validator_state.json"
priv_validator_laddr = "tcp://0.0.0.0:26659"
node_key_file = "config/node_key.json"

[rpc]
laddr = "tcp://0.0.0.0:26657"
grpc_laddr = ""
pprof_laddr = "localhost:6060"

[p2p]
laddr = "tcp://0.0.0.0:26656"
external_address = "203.0.113.7:26656"
seeds = "ade4d8bc8cbe014af6ebdf3cb7b1e9ad36f412c0@seeds.polkachu.com:14956"
persistent_peers = "e1b058e5cfa2b836ddaa496b10911da62dcf182e@10.0.0.2:26656"
unconditional_peer_ids = "e1b058e5cfa2b836ddaa496b10911da62dcf182e"
addr_book_file = "config/addrbook.json"
pex = true
seed_mode = false
max_num_inbound_peers = 40
max_num_outbound_peers = 10

[statesync]
enable = true
rpc_servers = "https://rpc.example:443,https://rpc2.example:443"

[consensus]
wal_file = "data/cs.wal/wal"
timeout_commit = "5s"

[instrumentation]
prometheus = true
prometheus_listen_addr = ":26660"
`;

const appToml = `
minimum-gas-prices = "0.005uatom"
halt-height = 123
halt-time = 0
[api]
enable = true
address = "tcp://0.0.0.0:1317"
[grpc]
enable = true
address = "0.0.0.0:9090"
[grpc-web]
enable = true
[state-sync]
snapshot-interval = 1000
`;

test("config.toml: every listener on the scratch's loopback ports, no peers, no remote signer, paths of the scratch", () => {
  const doc = parse(scratchConfigToml(configToml, ports)) as Record<string, Record<string, unknown> & unknown>;
  assert.equal(doc.moniker, 'val-1');
  assert.equal(doc.proxy_app, 'tcp://127.0.0.1:30005');
  assert.equal(doc.priv_validator_laddr, '');
  assert.equal(doc.priv_validator_key_file, 'config/priv_validator_key.json');
  assert.equal(doc.priv_validator_state_file, 'data/priv_validator_state.json');
  assert.equal(doc.db_dir, 'data');
  assert.deepEqual({ ...(doc.rpc as object) }, { laddr: 'tcp://127.0.0.1:30001', grpc_laddr: '', pprof_laddr: '', unsafe: false });
  const p2p = doc.p2p as Record<string, unknown>;
  assert.equal(p2p.laddr, 'tcp://127.0.0.1:30002');
  for (const key of ['seeds', 'persistent_peers', 'unconditional_peer_ids', 'external_address']) assert.equal(p2p[key], '', key);
  assert.equal(p2p.pex, false);
  assert.equal(p2p.max_num_outbound_peers, 0);
  assert.equal(p2p.max_num_inbound_peers, 0);
  assert.equal((doc.statesync as Record<string, unknown>).enable, false);
  assert.equal((doc.instrumentation as Record<string, unknown>).prometheus, false);
  assert.equal((doc.consensus as Record<string, unknown>).timeout_commit, '5s', 'other settings kept');
});

test("app.toml: the API and gRPC on the scratch's loopback ports, no halt height, no snapshots, no gRPC-web", () => {
  const doc = parse(scratchAppToml(appToml, ports)) as Record<string, Record<string, unknown>>;
  assert.equal(doc.api?.address, 'tcp://127.0.0.1:30004');
  assert.equal(doc.grpc?.address, '127.0.0.1:30003');
  assert.equal(doc['grpc-web']?.enable, false);
  assert.equal(doc['state-sync']?.['snapshot-interval'], 0);
  assert.equal((doc as Record<string, unknown>)['halt-height'], 0);
  assert.equal((doc as Record<string, unknown>)['minimum-gas-prices'], '0.005uatom');
});

test('app.toml and config.toml: EVM JSON-RPC, telemetry, streaming, a psql indexer and CometBFT v1 privileged gRPC turned off', () => {
  const app = parse(
    scratchAppToml(
      `${appToml}\n[json-rpc]\nenable = true\naddress = "0.0.0.0:8545"\nws-address = "0.0.0.0:8546"\n[telemetry]\nenabled = true\nstatsd-addr = "10.0.0.9:8125"\n[streaming.abci]\nkeys = ["*"]\nplugin = "abci_v1"\n`,
      ports,
    ),
  ) as Record<string, Record<string, unknown>>;
  assert.equal(app['json-rpc']?.enable, false);
  assert.equal(app['json-rpc']?.address, '127.0.0.1:0');
  assert.equal(app.telemetry?.enabled, false);
  assert.equal(app.telemetry?.['statsd-addr'], '');
  assert.deepEqual((app.streaming?.abci as Record<string, unknown>).keys, []);
  const comet = parse(
    scratchConfigToml(
      `${configToml}\n[tx_index]\nindexer = "psql"\npsql-conn = "postgresql://live-db/chain"\n[grpc]\nladdr = "tcp://0.0.0.0:26090"\n[grpc.privileged]\nladdr = "tcp://0.0.0.0:26091"\n`,
      ports,
    ),
  ) as Record<string, Record<string, unknown>>;
  assert.equal(comet.tx_index?.indexer, 'kv');
  assert.equal(comet.tx_index?.['psql-conn'], '');
  assert.equal(comet.grpc?.laddr, '');
  assert.equal((comet.grpc?.privileged as Record<string, unknown>).laddr, '');
});

test('the scratch config folder: fresh keys, no address book, the genesis copied; the live folder byte-identical', async (t) => {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-scratch-config-'));
  t.after(() => fs.rm(root, { recursive: true, force: true }));
  const live = path.join(root, 'live', 'config');
  await fs.mkdir(live, { recursive: true });
  const files: Record<string, string> = {
    'config.toml': configToml,
    'app.toml': appToml,
    'client.toml': 'chain-id = "cosmoshub-4"\nnode = "tcp://localhost:26657"\n',
    'genesis.json': '{"chain_id":"cosmoshub-4"}',
    'priv_validator_key.json': '{"live":"validator key"}',
    'node_key.json': '{"live":"node key"}',
    'addrbook.json': '{"addrs":[]}',
    // A validator key under a name of the operator's choosing (priv_validator_key_file = "config/val.json").
    'val.json': '{"address":"AB","pub_key":{},"priv_key":{"type":"tendermint/PrivKeyEd25519","value":"c2VjcmV0"}}',
  };
  for (const [name, text] of Object.entries(files)) await fs.writeFile(path.join(live, name), text, { mode: 0o600 });
  const digest = async () => {
    const out: Record<string, string> = {};
    for (const name of Object.keys(files))
      out[name] = createHash('sha256')
        .update(await fs.readFile(path.join(live, name)))
        .digest('hex');
    return out;
  };
  const before = await digest();
  const scratch = path.join(root, 'scratch');
  await fs.mkdir(path.join(scratch, 'data'), { recursive: true });
  const keys = newScratchKeys();
  await writeScratchConfig({
    liveConfigDir: live,
    liveGenesis: path.join(live, 'genesis.json'),
    scratchHome: scratch,
    ports,
    keys,
    chainId: 'cosmoshub-4-rehearsal',
  });
  assert.deepEqual(await digest(), before);
  const names = (await fs.readdir(path.join(scratch, 'config'))).sort();
  assert.deepEqual(names, ['app.toml', 'client.toml', 'config.toml', 'genesis.json', 'node_key.json', 'priv_validator_key.json']);
  assert.equal(await fs.readFile(path.join(scratch, 'config', 'priv_validator_key.json'), 'utf8'), keys.validatorKeyJson);
  assert.equal(await fs.readFile(path.join(scratch, 'config', 'node_key.json'), 'utf8'), keys.nodeKeyJson);
  assert.equal((await fs.stat(path.join(scratch, 'config', 'priv_validator_key.json'))).mode & 0o777, 0o600);
  assert.deepEqual(JSON.parse(await fs.readFile(path.join(scratch, 'data', 'priv_validator_state.json'), 'utf8')), { height: '0', round: 0, step: 0 });
  const client = parse(await fs.readFile(path.join(scratch, 'config', 'client.toml'), 'utf8'));
  assert.equal(client.node, 'tcp://127.0.0.1:30001');
  assert.equal(client['chain-id'], 'cosmoshub-4-rehearsal');
});
