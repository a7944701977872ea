/**
 * The chain client against the simulated node over real gRPC: no plan, a scheduled plan, the latest
 * height moving, and a dead address failing fast with a coded error instead of hanging.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';

import { proposeUpgrade, simFixture, startNode, waitFor, waitForProposal } from '@chainvisor/simd/testing';
import { Plan } from 'cosmjs-types/cosmos/upgrade/v1beta1/upgrade.js';

import { heightOf, planOf } from '../../src/chain/grpc-client.js';
import { ChainUnavailableError, createGrpcClient } from '../../src/chain/index.js';
import { unusedPort } from '../support/ports.js';

test('reads the scheduled plan and the latest height from a running node', async (t) => {
  const sim = await simFixture(t);
  const home = await sim.initHome();
  const node = await startNode(t, sim.bin('genesis'), home);
  const client = createGrpcClient({ address: node.addresses.grpc });
  t.after(() => client.close());
  // The node answers queries once its first block is committed ("not ready; please wait for first block").
  await waitFor(async () => (await client.latestHeight().catch(() => 0)) >= 1, 'the first block');

  assert.equal(await client.currentPlan(), null);
  const first = await client.latestHeight();
  assert.ok(first >= 1);
  await waitFor(async () => (await client.latestHeight()) > first, 'the height to move');

  const info = '{"binaries":{"any":"https://example.invalid/simd?checksum=sha256:00"}}';
  const { id } = await proposeUpgrade(sim.bin('genesis'), home, { name: 'v2', height: first + 10_000, info, extra: ['--no-validate'] });
  await waitForProposal(sim.bin('genesis'), home, id, /PASSED/);
  assert.deepEqual(await client.currentPlan(), { name: 'v2', height: first + 10_000, info });
});

test('a node on a loopback address is read directly, whatever proxy the environment names (as Go does)', async (t) => {
  const sim = await simFixture(t);
  const home = await sim.initHome();
  const node = await startNode(t, sim.bin('genesis'), home);
  // A proxy nothing listens on, named in every variable grpc-js reads, and nothing exempted from it.
  const names = ['grpc_proxy', 'https_proxy', 'http_proxy', 'no_grpc_proxy', 'no_proxy'];
  const saved = new Map(names.map((name) => [name, process.env[name]]));
  t.after(() => {
    for (const [name, value] of saved)
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  });
  const deadProxy = `http://127.0.0.1:${await unusedPort()}`;
  for (const name of names) {
    if (name.startsWith('no_')) delete process.env[name];
    else process.env[name] = deadProxy;
  }
  assert.match(node.addresses.grpc, /^(127\.0\.0\.1|localhost):\d+$/);
  const client = createGrpcClient({ address: node.addresses.grpc });
  t.after(() => client.close());
  await waitFor(async () => (await client.latestHeight().catch(() => 0)) >= 1, 'the first block, read past the proxy');
  assert.equal(await client.currentPlan(), null);
});

test('a node that is not listening is a ChainUnavailableError naming the address, not a hang', async (t) => {
  // A port that was free a moment ago: nothing listens on it.
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));

  const client = createGrpcClient({ address: `127.0.0.1:${port}`, timeoutMs: 2000 });
  t.after(() => client.close());
  const started = Date.now();
  await assert.rejects(client.latestHeight(), (error: unknown) => {
    assert.ok(error instanceof ChainUnavailableError);
    assert.equal(error.code, 'CHAINVISOR_CHAIN_UNAVAILABLE');
    assert.match(error.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
    return true;
  });
  // The deadline (2 s) with room for a loaded machine; without one the call would wait for a server forever.
  assert.ok(Date.now() - started < 6000, 'bounded by the call deadline');
});

test('a node that cannot be reached is not dialled again behind the caller’s back (an idle run stays quiet)', async (t) => {
  // Accepts and drops every connection, counting them: no gRPC answers here.
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const client = createGrpcClient({ address, timeoutMs: 1000 });
  t.after(() => client.close());

  await assert.rejects(client.currentPlan(), ChainUnavailableError);
  // A dial already on its way when the call failed may still land.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const afterCall = connections;
  assert.ok(afterCall >= 1, 'the call dialled the node');
  await new Promise((resolve) => setTimeout(resolve, 3000));
  assert.equal(connections, afterCall, 'no reconnection in the background between calls');
  // The next call dials again.
  await assert.rejects(client.latestHeight(), ChainUnavailableError);
  assert.ok(connections > afterCall);
});

test('a node refused, then started: the same client reads it as soon as it listens', async (t) => {
  const sim = await simFixture(t);
  const home = await sim.initHome();
  const address = `127.0.0.1:${await unusedPort()}`;
  const client = createGrpcClient({ address, timeoutMs: 2000 });
  t.after(() => client.close());
  // Refused twice: the second time without a gRPC channel (a bare connect is tried first).
  await assert.rejects(client.currentPlan(), ChainUnavailableError);
  await assert.rejects(client.currentPlan(), (error: unknown) => error instanceof ChainUnavailableError && /ECONNREFUSED/.test(error.message));
  await startNode(t, sim.bin('genesis'), home, ['--grpc.address', address]);
  await waitFor(async () => (await client.latestHeight().catch(() => 0)) >= 1, 'the first block, through the client refused before');
  assert.equal(await client.currentPlan(), null);
});

test('a plan or a height no chain could have is refused, over gRPC as over the RPC: negative, 0, past 2^53', () => {
  const plan = (height: bigint) => Plan.fromPartial({ name: 'v2', height, info: 'i' });
  assert.deepEqual(planOf(plan(1200n)), { name: 'v2', height: 1200, info: 'i' });
  assert.equal(planOf(undefined), null);
  assert.equal(planOf(Plan.fromPartial({ name: '' })), null);
  assert.equal(planOf(plan(-5n)), 'the plan "v2" has a negative height (-5)');
  assert.equal(planOf(plan(0n)), 'the plan "v2" has height 0');
  assert.match(String(planOf(plan(2n ** 60n))), /past 2\^53/);
  assert.equal(heightOf(9007199254740991n), Number.MAX_SAFE_INTEGER);
  assert.match(String(heightOf(9007199254740992n)), /past 2\^53/);
});
