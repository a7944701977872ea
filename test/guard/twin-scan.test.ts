/**
 * The network's memory of the twin check (issue #32, guard/twin-scan.ts), against local CometBFT-shaped
 * servers: the window of the newest commits read once, then only what is new (a start after an upgrade
 * on a halted network reads one /status); the highest answering RPC read, another taking over the
 * commits it cannot give; a pruned height skipped; another chain id refused at a start; commits of
 * another chain a failed reading.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { test, type TestContext } from 'node:test';

import { createNetworkReader } from '../../src/chain/index.js';
import { TwinScan } from '../../src/guard/twin-scan.js';
import { createHttpClient } from '../../src/shared/net/index.js';

const me = 'AA'.repeat(20);
const peer = 'BB'.repeat(20);

interface FakeChain {
  url: string;
  height: number;
  chainId: string;
  /** Heights at which `me` signed. */
  signedBy: Set<number>;
  /** Heights below this are pruned; commits at or above `failFrom` answer HTTP 500. */
  lowest: number;
  failFrom: number;
  /** The chain id the commits' headers name (default: `chainId`). */
  commitChainId?: string;
  requests: string[];
}

async function fakeChain(t: TestContext, height: number): Promise<FakeChain> {
  const sockets = new Set<Socket>();
  const chain: FakeChain = { url: '', height, chainId: 'c-1', signedBy: new Set(), lowest: 1, failFrom: Number.POSITIVE_INFINITY, requests: [] };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    chain.requests.push(`${url.pathname}${url.searchParams.has('height') ? `@${url.searchParams.get('height')}` : ''}`);
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/status')
      return send(200, {
        result: {
          node_info: { network: chain.chainId },
          sync_info: { latest_block_height: String(chain.height), latest_block_time: new Date(chain.height * 1000).toISOString() },
        },
      });
    const h = url.searchParams.has('height') ? Number(url.searchParams.get('height')) : chain.height;
    if (url.pathname === '/commit') {
      if (h > chain.height)
        return send(500, {
          error: { code: -32603, message: 'Internal error', data: `height ${h} must be less than or equal to the current blockchain height ${chain.height}` },
        });
      if (h < chain.lowest)
        return send(500, { error: { code: -32603, message: 'Internal error', data: `height ${h} is not available, lowest height is ${chain.lowest}` } });
      if (h >= chain.failFrom) return send(500, { error: { code: -32603, message: 'Internal error', data: 'busy' } });
      const signatures = [
        { block_id_flag: 2, validator_address: peer },
        chain.signedBy.has(h) ? { block_id_flag: 3, validator_address: me } : { block_id_flag: 1, validator_address: '' },
      ];
      const header = { chain_id: chain.commitChainId ?? chain.chainId, height: String(h), time: new Date(h * 1000).toISOString() };
      return send(200, { result: { signed_header: { header, commit: { height: String(h), signatures } } } });
    }
    if (url.pathname === '/validators') return send(200, { result: { validators: [{ address: peer }], total: '1' } });
    return send(404, {});
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  chain.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return chain;
}

function scanOf(t: TestContext, chains: FakeChain[], blocks = 10): TwinScan {
  const client = createHttpClient({ timeoutMs: 2000, env: {} });
  t.after(() => client.close());
  const readers = chains.map((c) => createNetworkReader({ url: new URL(c.url), client, timeoutMs: 5000 }));
  return new TwinScan({ readers, address: me, chainId: 'c-1', blocks });
}

const signal = () => AbortSignal.timeout(5000);

test('the window is read once; then only the new heights, and nothing at all while the network is halted', async (t) => {
  const chain = await fakeChain(t, 100);
  chain.signedBy = new Set([95, 96]);
  const scan = scanOf(t, [chain]);
  assert.deepEqual(await scan.read(signal()), { rpc: `${chain.url}/`, fromHeight: 91, toHeight: 100, complete: true });
  assert.equal(scan.seenHeight, 96);
  assert.equal(chain.requests.filter((r) => r.startsWith('/commit')).length, 10);

  // A start after an upgrade: the network halted at the height, nothing new to read.
  chain.requests = [];
  assert.deepEqual(await scan.read(signal()), { rpc: `${chain.url}/`, fromHeight: 101, toHeight: 100, complete: true });
  assert.deepEqual(chain.requests, ['/status'], 'a halted network: one /status, no commit');
  // While the node runs: the RPC's latest height, then the commits of the heights new since, each asked by height.
  chain.requests = [];
  await scan.poll(signal());
  assert.deepEqual(chain.requests, ['/status']);
  chain.height = 101;
  chain.requests = [];
  const one = await scan.poll(signal());
  assert.deepEqual([one.fromHeight, one.toHeight, one.complete], [101, 101, true]);
  assert.deepEqual(chain.requests, ['/status', '/commit@101'], 'a new block: its commit');
  // Blocks faster than the polls: the heights in between too.
  chain.height = 104;
  chain.signedBy.add(103);
  chain.requests = [];
  const three = await scan.poll(signal());
  assert.deepEqual([three.fromHeight, three.toHeight, three.complete], [102, 104, true]);
  assert.deepEqual(chain.requests, ['/status', '/commit@102', '/commit@103', '/commit@104']);
  assert.equal(scan.seenHeight, 103);
  assert.equal(scan.blockMs, 1000, "the network's block time, from its own clock");
});

test('at a start the highest answering RPC is read; the commits it cannot give are asked of another', async (t) => {
  const lower = await fakeChain(t, 99);
  const higher = await fakeChain(t, 100);
  higher.failFrom = 97;
  for (const c of [lower, higher]) c.signedBy = new Set([98]);
  const scan = scanOf(t, [lower, higher]);
  const read = await scan.read(signal());
  assert.equal(read.toHeight, 100, 'the window ends at the highest RPC');
  assert.ok(higher.requests.includes('/commit@91'), 'read on the highest first');
  assert.ok(lower.requests.includes('/commit@98') && !lower.requests.includes('/commit@91'), 'only what the highest failed, on the other');
  assert.equal(scan.seenHeight, 98, 'seen on the RPC that took over');
  assert.equal(read.complete, false, 'block 100 is on neither');
  assert.match(read.failure ?? '', /did not give the commit of block 100/);
});

test('a pruned window is complete; another chain id is refused at a start (78), a failure of the reading while the node runs', async (t) => {
  const chain = await fakeChain(t, 100);
  chain.lowest = 96;
  const scan = scanOf(t, [chain]);
  const read = await scan.read(signal());
  assert.equal(read.complete, true);
  assert.deepEqual(
    chain.requests.filter((r) => r.startsWith('/commit')).sort(),
    ['/commit@100', '/commit@91', '/commit@92', '/commit@93', '/commit@94', '/commit@95', '/commit@96', '/commit@97', '/commit@98', '/commit@99'].sort(),
  );

  chain.chainId = 'other-2';
  await assert.rejects(scanOf(t, [chain]).read(signal()), {
    code: 'CHAINVISOR_NETWORK_RPC_OTHER_CHAIN',
    message: /serves chain "other-2", not this home's "c-1"/,
  });
  await assert.rejects(scan.poll(signal()), { name: 'NetworkRpcError', message: /serves chain "other-2"/ });
});

test('commits whose headers name another chain are a failed reading, never a signature seen (issue #44)', async (t) => {
  const chain = await fakeChain(t, 100);
  chain.signedBy = new Set([99, 100]);
  chain.commitChainId = 'other-2';
  const scan = scanOf(t, [chain]);
  const read = await scan.read(signal());
  assert.equal(read.complete, false);
  assert.match(read.failure ?? '', /did not give the commit of block 91: its header names chain "other-2", not this home's "c-1"/);
  assert.equal(scan.seenHeight, undefined);
  const asked = chain.requests.filter((r) => r.startsWith('/commit')).length;
  assert.ok(asked >= 1 && asked <= 3, `at most three answers at a time: the first wrong one ends the reading (${asked} asked)`);
});
