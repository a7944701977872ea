/**
 * The CometBFT RPC client against the simulated node (real processes and sockets): no plan, a scheduled
 * plan, the height moving; the same node behind a unix socket; a port where nothing listens and one
 * that accepts and never answers, both failing within the deadline with a coded error. Then what a
 * hostile or broken RPC answers (issue #31), from a fake RPC on a real port: refused, or said safely.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { proposeUpgrade, simFixture, startNode, waitFor, waitForProposal } from '@chainvisor/simd/testing';
import { QueryCurrentPlanResponse } from 'cosmjs-types/cosmos/upgrade/v1beta1/query.js';

import { ChainAnswerRefusedError, ChainUnavailableError, createRpcClient } from '../../src/chain/index.js';
import { type Reply, startFakeRpc, statusResult } from '../support/fake-rpc.js';
import { unusedPort } from '../support/ports.js';

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
  // A refusal ends the call at once, long before its deadline.
  const client = createRpcClient({ address, timeoutMs: 20_000 });
  t.after(() => client.close());
  const started = Date.now();
  await assert.rejects(client.latestHeight(), (error: unknown) => {
    assert.ok(error instanceof ChainUnavailableError);
    assert.equal(error.code, 'CHAINVISOR_CHAIN_UNAVAILABLE');
    assert.match(error.message, new RegExp(`^could not read the latest block height from the node's RPC at ${address}: .*ECONNREFUSED`));
    return true;
  });
  assert.ok(Date.now() - started < 8000, `${Date.now() - started} ms`);
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
  // Under the 5 s default by far, with room for loading the HTTP client on a loaded machine.
  assert.ok(took >= 650 && took < 4500, `${took} ms`);
  assert.ok(held.length >= 1, 'the client did connect');
});

/** A fake RPC answering `path` with `reply`, and a client on it; both closed with the test. */
async function clientOn(t: TestContext, answers: Record<string, Reply>, timeoutMs = 5000) {
  const rpc = await startFakeRpc();
  t.after(() => rpc.close());
  for (const [p, reply] of Object.entries(answers)) rpc.answer(p, reply);
  const client = createRpcClient({ address: rpc.address, timeoutMs });
  t.after(() => client.close());
  return client;
}

const planAnswer = (plan: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}): Reply => ({
  result: {
    response: {
      code: 0,
      value: Buffer.from(QueryCurrentPlanResponse.encode(QueryCurrentPlanResponse.fromPartial({ plan })).finish()).toString('base64'),
      ...extra,
    },
  },
});

async function assertRefused(reading: Promise<unknown>, reason: RegExp): Promise<void> {
  await assert.rejects(reading, (error: unknown) => {
    assert.ok(error instanceof ChainAnswerRefusedError, String(error));
    assert.match(error.message, reason);
    return true;
  });
}

test('a plan at a negative height, at 0 or past 2^53 is refused, never rounded or used', async (t) => {
  assert.deepEqual(await (await clientOn(t, { '/abci_query': planAnswer({ name: 'v2', height: 1200n, info: 'i' }) })).currentPlan(), {
    name: 'v2',
    height: 1200,
    info: 'i',
  });
  assert.equal(await (await clientOn(t, { '/abci_query': planAnswer(undefined) })).currentPlan(), null);
  await assertRefused((await clientOn(t, { '/abci_query': planAnswer({ name: 'v2', height: -5n }) })).currentPlan(), /"v2" has a negative height \(-5\)/);
  await assertRefused((await clientOn(t, { '/abci_query': planAnswer({ name: 'v2', height: 0n }) })).currentPlan(), /"v2" has height 0/);
  await assertRefused((await clientOn(t, { '/abci_query': planAnswer({ name: 'v2', height: 2n ** 60n }) })).currentPlan(), /past 2\^53/);
});

test('abci_query of another shape: a code as a string, a value that is not base64, bytes that are not the answer', async (t) => {
  await assertRefused((await clientOn(t, { '/abci_query': planAnswer({ name: 'v2', height: 5n }, { code: '0' }) })).currentPlan(), /response\.code/);
  await assertRefused((await clientOn(t, { '/abci_query': { result: { response: { value: '%%%' } } } })).currentPlan(), /the value is base64/);
  await assertRefused((await clientOn(t, { '/abci_query': { result: { response: { value: '/////w==' } } } })).currentPlan(), /not a QueryCurrentPlanResponse/);
  const failed = await clientOn(t, { '/abci_query': { result: { response: { code: 18, log: `\u001b[31m${'x'.repeat(10_000)}` } } } });
  await assert.rejects(failed.currentPlan(), (error: Error) => {
    assert.ok(!(error instanceof ChainAnswerRefusedError), 'a failed query is the node saying no, not a wrong answer');
    assert.match(error.message, /the query failed \(code 18\): \\u\{1b\}\[31mxxx/);
    assert.ok(error.message.length < 500);
    return true;
  });
});

test('a latest height that is negative, past 2^53 or a number is refused', async (t) => {
  const status = (height: unknown): Reply => ({ result: { sync_info: { latest_block_height: height } } });
  assert.equal(await (await clientOn(t, { '/status': status('1234') })).latestHeight(), 1234);
  for (const height of ['-1', '99999999999999999999', 1234, '12e3', ''])
    await assertRefused((await clientOn(t, { '/status': status(height) })).latestHeight(), /latest_block_height/);
});

test('a JSON-RPC error is said clipped to 200 characters, its control characters escaped', async (t) => {
  const data = `\u001b]0;owned\u0007${'e'.repeat(1_000_000)}`;
  const client = await clientOn(t, {
    '/abci_query': { status: 500, body: JSON.stringify({ jsonrpc: '2.0', id: -1, error: { code: -32603, message: 'Internal error', data } }) },
  });
  await assert.rejects(client.currentPlan(), (error: Error) => {
    assert.ok(error instanceof ChainUnavailableError && !(error instanceof ChainAnswerRefusedError));
    assert.match(error.message, /the node answered an error: \\u\{1b\}\]0;owned\\u\{7\}eee/);
    assert.match(error.message, /… \(1000010 characters\)$/);
    assert.ok(error.message.length < 500, `${error.message.length} characters`);
    return true;
  });
});

test('a proxy’s error page (HTTP 502, not JSON) is the node being away, not a refused answer', async (t) => {
  const client = await clientOn(t, { '/status': { status: 502, body: '<html>Bad Gateway</html>' } });
  await assert.rejects(client.latestHeight(), (error: Error) => {
    assert.ok(error instanceof ChainUnavailableError && !(error instanceof ChainAnswerRefusedError), String(error));
    assert.match(error.message, /the node answered HTTP 502$/);
    return true;
  });
});

test('a slow-loris answer (a byte every 50 ms) ends at the deadline', async (t) => {
  const client = await clientOn(
    t,
    { '/status': { trickle: JSON.stringify(statusResult({ height: 1, address: 'A'.repeat(40), power: '1' })), everyMs: 50 } },
    700,
  );
  await assert.rejects(client.latestHeight(), (error: Error) => error instanceof ChainUnavailableError && /no answer within 700 ms/.test(error.message));
});

test('an answer that never ends is refused at the size bound, and the connection dropped', async (t) => {
  const client = await clientOn(t, { '/abci_query': { endless: true } });
  // The bound of 4 MiB of protobuf, as JSON: its base64 and the envelope.
  await assertRefused(client.currentPlan(), /the answer is larger than \d+ bytes/);
});
