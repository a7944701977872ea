/**
 * The chain reader against the simulated node: gRPC when it answers; the RPC when gRPC is off (never
 * dialled) or does not answer — and then the RPC only, until it fails (no fallback cost per read);
 * one error naming both when neither answers.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { test, type TestContext } from 'node:test';

import { simFixture, startNode, waitFor } from '@chainvisor/simd/testing';

import { type ChainAddresses, ChainUnavailableError, createChainReader } from '../../src/chain/index.js';
import { unusedPort } from '../support/ports.js';

/** A TCP server that counts connections and drops each one: no gRPC answers there. */
async function dropper(t: TestContext): Promise<{ address: string; connections(): number }> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { address: `127.0.0.1:${(server.address() as net.AddressInfo).port}`, connections: () => connections };
}

const at = (grpc: string, rpc: string, enabled = true): ChainAddresses => ({
  grpc: { address: grpc, enabled, source: enabled ? 'test' : 'config/app.toml [grpc] enable' },
  rpc: { address: rpc, source: 'test' },
});

test('gRPC first, the RPC when gRPC is off or silent, one error when neither answers', async (t) => {
  const sim = await simFixture(t);
  const home = await sim.initHome();
  const node = await startNode(t, sim.bin('genesis'), home);
  const { grpc, rpc } = node.addresses;

  await t.test('gRPC answers: it is used', async () => {
    const reader = createChainReader({ addresses: at(grpc, rpc) });
    await waitFor(async () => (await reader.latestHeight()) >= 1, 'the first block');
    assert.equal(reader.answeredBy(), `the node's gRPC at ${grpc}`);
    assert.equal(await reader.currentPlan(), null);
    reader.close();
  });

  await t.test('gRPC off: straight to the RPC, gRPC never dialled', async (t) => {
    const silent = await dropper(t);
    const reader = createChainReader({ addresses: at(silent.address, rpc, false) });
    assert.ok((await reader.latestHeight()) >= 1);
    assert.equal(await reader.currentPlan(), null);
    assert.equal(reader.answeredBy(), `the node's RPC at ${rpc}`);
    assert.equal(reader.describe(), `the node's RPC at ${rpc} (gRPC is off: config/app.toml [grpc] enable)`);
    assert.equal(silent.connections(), 0);
    reader.close();
  });

  await t.test('gRPC silent: the RPC answers, and is asked first from then on', async (t) => {
    const silent = await dropper(t);
    const reader = createChainReader({ addresses: at(silent.address, rpc), timeoutMs: 2000 });
    assert.ok((await reader.latestHeight()) >= 1);
    assert.equal(reader.answeredBy(), `the node's RPC at ${rpc}`);
    // A dial already on its way when the gRPC call failed may still land.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const dialled = silent.connections();
    assert.ok(dialled >= 1, 'gRPC was tried first');
    const started = Date.now();
    for (let i = 0; i < 10; i++) await reader.latestHeight();
    // A fallback per read would wait out the 2 s deadline ten times (20 s).
    assert.ok(Date.now() - started < 8000, 'no fallback delay per read');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(silent.connections(), dialled, 'gRPC not dialled again while the RPC answers');
    reader.close();
  });

  await t.test('neither answers: one ChainUnavailableError naming both', async () => {
    const grpcDown = `127.0.0.1:${await unusedPort()}`;
    const rpcDown = `tcp://127.0.0.1:${await unusedPort()}`;
    const reader = createChainReader({ addresses: at(grpcDown, rpcDown), timeoutMs: 1000 });
    await assert.rejects(reader.currentPlan(), (error: unknown) => {
      assert.ok(error instanceof ChainUnavailableError);
      assert.match(
        error.message,
        new RegExp(
          `^could not read the scheduled upgrade plan from the node's gRPC at ${grpcDown} \\(.*\\) nor from the node's RPC at ${rpcDown}: .*ECONNREFUSED`,
        ),
      );
      return true;
    });
    reader.close();
  });
});
