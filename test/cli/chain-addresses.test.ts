/**
 * `chainvisor config` shows where the chain is read — the node's gRPC and CometBFT RPC, each with where
 * its address came from — and refuses (78) an address setting that is not an address.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { makeHome, type TestHome } from '../support/home.js';

describe('chainvisor config: the chain addresses', () => {
  let t: TestHome;
  before(async () => {
    t = await makeHome();
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    await fs.mkdir(path.join(t.home, 'config'), { recursive: true });
  });
  after(() => t.cleanup());

  test('from the defaults, then from the node’s config.toml and app.toml', async () => {
    const bare = await t.cliOk(['config']);
    assert.match(bare.stdout, /^grpc +localhost:9090 \[default\]$/m);
    assert.match(bare.stdout, /^rpc +tcp:\/\/127\.0\.0\.1:26657 \[default\]$/m);

    await fs.writeFile(path.join(t.home, 'config', 'config.toml'), '[rpc]\nladdr = "tcp://127.0.0.1:36657"\n');
    await fs.writeFile(path.join(t.home, 'config', 'app.toml'), '[grpc]\nenable = false\naddress = "localhost:19090"\n');
    const files = await t.cliOk(['config']);
    assert.match(files.stdout, /^grpc +off \[config\/app\.toml \[grpc\] enable\]$/m);
    assert.match(files.stdout, /^rpc +tcp:\/\/127\.0\.0\.1:36657 \[config\/config\.toml \[rpc\] laddr\]$/m);
    assert.match(files.stdout, /^CHAINVISOR_RPC_ADDRESS +\(empty\) +\[default\]$/m);
  });

  test('the operator’s settings win, unix:// included', async () => {
    const r = await t.cliOk(['config'], { DAEMON_GRPC_ADDRESS: 'tcp://10.0.0.5:9090', CHAINVISOR_RPC_ADDRESS: 'unix:///run/simd/rpc.sock' });
    assert.match(r.stdout, /^grpc +10\.0\.0\.5:9090 \[DAEMON_GRPC_ADDRESS\]$/m);
    assert.match(r.stdout, /^rpc +unix:\/\/\/run\/simd\/rpc\.sock \[CHAINVISOR_RPC_ADDRESS\]$/m);
  });

  test('an address that is not one is refused (78), naming the setting', async () => {
    const r = await t.cli(['config'], { DAEMON_GRPC_ADDRESS: 'not an address', CHAINVISOR_RPC_ADDRESS: 'ftp://x:1' });
    assert.equal(r.exitCode, 78, r.stderr);
    assert.match(r.stderr, /DAEMON_GRPC_ADDRESS="not an address": expected the node's gRPC address as host:port/);
    assert.match(r.stderr, /CHAINVISOR_RPC_ADDRESS="ftp:\/\/x:1": expected the node's CometBFT RPC as tcp:\/\/host:port/);
  });
});
