/**
 * The CometBFT RPC client against the simulated node (real processes and sockets): no plan, a scheduled
 * plan, the height moving; the same node behind a unix socket; a port where nothing listens and one
 * that accepts and never answers, both failing within the deadline with a coded error.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { proposeUpgrade, simFixture, startNode, waitFor, waitForProposal } from '@chainvisor/simd/testing';

import { ChainUnavailableError, createRpcClient } from '../../../src/watcher/chain/index.js';
import { unusedPort } from '../../support/ports.js';

test('reads the scheduled plan and the latest height over the RPC', async (t) => {
  const sim = await simFixture(t);
  const home = await sim.initHome();
  const node = await startNode(t, sim.bin('genesis'), home);
  const client = createRpcClient({ address: node.addresses.rpc });
  t.after(() => client.close());
  assert.equal(client.describe(), `the node's RPC at ${node.addresses.rpc}`);
  await waitFor(async () => (await client.latestHeight()) >= 1, 'the first block');
  assert.equal(await client.currentPlan(), null);
  const first = await client.latestHeight();
  await waitFor(async () => (await client.latestHeight()) > first, 'the height to move');

  const info = '{"binaries":{"any":"https://example.invalid/simd?checksum=sha256:00"}}';
  const { id } = await proposeUpgrade(sim.bin('genesis'), home, { name: 'v2', height: first + 10_000, info, extra: ['--no-validate'] });
  await waitForProposal(sim.bin('genesis'), home, id, /PASSED/);
  assert.deepEqual(await client.currentPlan(), { name: 'v2', height: first + 10_000, info });

  // The bare host:port and http:// forms reach the same node.
  for (const form of [node.addresses.rpc.replace('tcp://', ''), node.addresses.rpc.replace('tcp://', 'http://')]) {
    const other = createRpcClient({ address: form });
    assert.equal((await other.currentPlan())?.name, 'v2', form);
    other.close();
  }
});

test('a unix:// address: the node reached through its socket', async (t) => {
  const sim = await simFixture(t);
  const home = await sim.initHome();
  const node = await startNode(t, sim.bin('genesis'), home);
  const target = new URL(node.addresses.rpc.replace('tcp:', 'http:'));
  // The simulated node listens on TCP only: a socket relays to it, byte for byte.
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'rpc-unix-'));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  const socketPath = path.join(dir, 'rpc.sock');
  const relay = net.createServer((socket) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(socketPath, resolve));
  t.after(() => new Promise<void>((resolve) => relay.close(() => resolve())));
  const client = createRpcClient({ address: `unix://${socketPath}` });
  t.after(() => client.close());
  await waitFor(async () => (await client.latestHeight()) >= 1, 'a height through the socket');
  assert.equal(await client.currentPlan(), null);
});

test('nothing listening: a ChainUnavailableError naming the RPC address, at once', async (t) => {
  const address = `tcp://127.0.0.1:${await unusedPort()}`;
  const client = createRpcClient({ address, timeoutMs: 2000 });
  t.after(() => client.close());
  const started = Date.now();
  await assert.rejects(client.latestHeight(), (error: unknown) => {
    assert.ok(error instanceof ChainUnavailableError);
    assert.equal(error.code, 'CHAINVISOR_CHAIN_UNAVAILABLE');
    assert.match(error.message, new RegExp(`^could not read the latest block height from the node's RPC at ${address}: .*ECONNREFUSED`));
    return true;
  });
  assert.ok(Date.now() - started < 1500);
});

test('a node that accepts and never answers: the call ends at its deadline', async (t) => {
  const held: net.Socket[] = [];
  const server = net.createServer((socket) => void held.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of held) socket.destroy();
        server.close(() => resolve());
      }),
  );
  const client = createRpcClient({ address: `tcp://127.0.0.1:${(server.address() as net.AddressInfo).port}`, timeoutMs: 700 });
  t.after(() => client.close());
  const started = Date.now();
  await assert.rejects(client.currentPlan(), (error: unknown) => error instanceof ChainUnavailableError && /no answer within 700 ms/.test(error.message));
  const took = Date.now() - started;
  assert.ok(took >= 650 && took < 2500, `${took} ms`);
  assert.ok(held.length >= 1, 'the client did connect');
});
