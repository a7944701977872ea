/**
 * The network's view (issue #32), src/chain/network.ts: a CometBFT RPC of another node read through
 * chainvisor's HTTP client — against the simulated node (real process), and against a local server
 * with faults: credentials sent as Basic authorization and never in a message, a base path and an API
 * key in the query kept, an error answer (a pruned height names the lowest one), a body past the
 * bound, nesting past the bound, a shape that is not CometBFT's, a server that never answers; an
 * answer that trickles past the deadline, millions of values, a commit of another height (issue #44).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { cli, simFixture, startNode } from '@chainvisor/simd/testing';

import { createNetworkReader, NetworkRpcError } from '../../src/chain/index.js';
import { createHttpClient } from '../../src/shared/net/index.js';

type Answer = { status?: number; body: string } | { trickle: string } | 'hang';

/** A local server answering each request with `answer(path)`; records the path and the authorization header. */
async function fakeRpc(
  t: TestContext,
  answer: (url: string) => Answer,
): Promise<{ origin: string; seen: { url: string; authorization: string | undefined }[] }> {
  const seen: { url: string; authorization: string | undefined }[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
    const a = answer(req.url ?? '');
    if (a === 'hang') return;
    if ('trickle' in a) {
      // One byte every 100 ms, headers first: the client's per-phase limits never fire.
      res.writeHead(200, { 'content-type': 'application/json' });
      let i = 0;
      const timer = setInterval(() => (i < a.trickle.length ? res.write(a.trickle[i++]) : res.end()), 100);
      res.on('close', () => clearInterval(timer));
      return;
    }
    res.writeHead(a.status ?? 200, { 'content-type': 'application/json' }).end(a.body);
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
  return { origin: `127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const result = (value: unknown) => ({ body: JSON.stringify({ jsonrpc: '2.0', id: -1, result: value }) });
const status = result({ node_info: { network: 'chain-7' }, sync_info: { latest_block_height: '120', latest_block_time: '2026-01-01T00:00:10Z' } });

function reader(t: TestContext, url: string, timeoutMs = 2000) {
  const client = createHttpClient({ timeoutMs, env: {} });
  t.after(() => client.close());
  return createNetworkReader({ url: new URL(url), client, timeoutMs });
}

async function failure(promise: Promise<unknown>): Promise<NetworkRpcError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof NetworkRpcError, String(error));
    return error;
  }
  assert.fail('expected a NetworkRpcError');
}

test('the simulated node: its chain id and height, the validator set, who signed each commit', async (t) => {
  const fx = await simFixture(t, { versions: ['genesis'] });
  const validatorHome = await fx.initHome();
  const keyFile = path.join(validatorHome, 'config', 'priv_validator_key.json');
  const networkHome = path.join(fx.dir, 'network');
  assert.equal((await cli(fx.bin('genesis'), ['init', 'n', '--home', networkHome, '--chain-id', 'net-3'])).code, 0);
  const node = await startNode(t, fx.bin('genesis'), networkHome, ['--sim-peers-power', '3000000', '--sim-peer-key', keyFile, '--sim-peer-key-from', '3']);
  await node.waitForHeight(4);
  const r = reader(t, node.addresses.rpc.replace('tcp:', 'http:'));
  const address = (JSON.parse(await fs.readFile(keyFile, 'utf8')) as { address: string }).address;

  const s = await r.status();
  assert.equal(s.chainId, 'net-3');
  assert.ok(s.latestHeight >= 4);
  assert.ok(Number.isFinite(s.latestTime));
  assert.equal(await r.inValidatorSet(address, s.latestHeight), true);
  assert.equal(await r.inValidatorSet('0'.repeat(40), s.latestHeight), false);
  const second = await r.commit(2);
  assert.equal(second.signers.has(address), false, 'outside the window');
  assert.equal(second.signers.size, 10, "the node's own validator and the 9 other peers");
  const third = await r.commit(3);
  assert.equal(third.height, 3);
  assert.equal(third.signers.has(address), true);
  assert.equal(third.signers.size, 11, 'from 3, the peer with the key too');
  assert.equal(third.chainId, 'net-3');
  const newest = await r.commit(undefined);
  assert.ok(newest.height >= s.latestHeight && newest.signers.has(address), 'the newest commit, without a height');
  assert.ok(newest.time > third.time);
  const beyond = await failure(r.commit(s.latestHeight + 1000));
  assert.match(beyond.message, /did not give the commit of block \d+: it answered: height \d+ must be less than or equal to the current blockchain height/);
});

test('credentials go as Basic authorization, a base path and the query string are kept; no message shows them', async (t) => {
  const rpc = await fakeRpc(t, (url) =>
    url.startsWith('/provider/status?') ? status : { status: 500, body: JSON.stringify({ error: { code: -32603, message: 'Internal error', data: 'boom' } }) },
  );
  const r = reader(t, `http://u:p%40ss@${rpc.origin}/provider/?apikey=k3y`);
  assert.equal(r.shown, `http://***@${rpc.origin}/…`);
  assert.deepEqual(await r.status(), { chainId: 'chain-7', latestHeight: 120, latestTime: Date.parse('2026-01-01T00:00:10Z') });
  assert.equal(rpc.seen[0]?.url, '/provider/status?apikey=k3y');
  assert.equal(rpc.seen[0]?.authorization, `Basic ${Buffer.from('u:p@ss').toString('base64')}`);
  const error = await failure(r.commit(5));
  assert.equal(rpc.seen[1]?.url, '/provider/commit?apikey=k3y&height=5');
  assert.match(error.message, /^http:\/\/\*\*\*@127\.0\.0\.1:\d+\/… did not give the commit of block 5: it answered: boom$/);
  assert.doesNotMatch(error.message, /k3y|p%40ss|p@ss/);
});

test('a node that pruned the height says the lowest it keeps', async (t) => {
  const rpc = await fakeRpc(t, () => ({
    status: 500,
    body: JSON.stringify({ error: { code: -32603, message: 'Internal error', data: 'height 10 is not available, lowest height is 70' } }),
  }));
  const error = await failure(reader(t, `http://${rpc.origin}`).commit(10));
  assert.equal(error.lowestHeight, 70);
});

test('hostile answers are refused with a reason: too large, nested too deep, not CometBFT, not JSON, no answer', async (t) => {
  const huge = `{"result":{"pad":"${'x'.repeat(9 * 1024 * 1024)}"}}`;
  const deep = `{"result":${'['.repeat(5000)}${']'.repeat(5000)}}`;
  const answers: Record<string, Answer> = {
    '/huge/status': { body: huge },
    '/deep/status': { body: deep },
    '/shape/status': result({ node_info: { network: 7 }, sync_info: { latest_block_height: '1' } }),
    '/height/status': result({ node_info: { network: 'c' }, sync_info: { latest_block_height: '99999999999999999999' } }),
    '/html/status': { status: 502, body: '<html>bad gateway</html>' },
    '/signatures/commit?height=1': result({
      signed_header: {
        header: { chain_id: 'c', time: '2026-01-01T00:00:00Z' },
        commit: { height: '1', signatures: [{ block_id_flag: '2', validator_address: 'AB' }] },
      },
    }),
    '/hang/status': 'hang',
  };
  const rpc = await fakeRpc(t, (url) => answers[url] ?? { status: 404, body: 'no' });
  const at = (prefix: string, timeoutMs?: number) => reader(t, `http://${rpc.origin}/${prefix}`, timeoutMs);
  assert.match((await failure(at('huge').status())).message, /the answer is larger than 8388608 bytes/);
  assert.match((await failure(at('deep').status())).message, /nested deeper than 16 levels/);
  assert.match((await failure(at('shape').status())).message, /not CometBFT's \(node_info\.network: .*string/);
  assert.match((await failure(at('height').status())).message, /latest_block_height: not a decimal height/);
  assert.match((await failure(at('html').status())).message, /did not give its status: HTTP 502$/);
  assert.match((await failure(at('signatures').commit(1))).message, /block_id_flag: .*number/);
  assert.match((await failure(at('hang', 300).status(AbortSignal.timeout(300)))).message, /no answer in time|no answer within 300 ms/);
});

test('issue #44: the deadline covers the whole body; an answer of millions of values, or of another height, is refused', async (t) => {
  const commitOf = (height: string) => ({
    signed_header: { header: { chain_id: 'c', time: '2026-01-01T00:00:00Z' }, commit: { height, signatures: [{ block_id_flag: 2, validator_address: 'AB' }] } },
  });
  const numbers = `{"jsonrpc":"2.0","id":-1,"result":{"signed_header":{"commit":{"signatures":[${'0,'.repeat(3_000_000)}0]}}}}`;
  const answers: Record<string, Answer> = {
    '/trickle/status': { trickle: status.body },
    '/numbers/commit?height=1': { body: numbers },
    '/other/commit?height=5': result(commitOf('999999999999999')),
    '/same/commit?height=5': result(commitOf('5')),
  };
  const rpc = await fakeRpc(t, (url) => answers[url] ?? { status: 404, body: 'no' });
  const at = (prefix: string, timeoutMs?: number) => reader(t, `http://${rpc.origin}/${prefix}`, timeoutMs);
  const began = performance.now();
  assert.match((await failure(at('trickle', 500).status())).message, /did not give its status: no answer within 500 ms$/);
  const took = performance.now() - began;
  // The whole body, a byte every 100 ms, would take far longer; the deadline ends it (room left for a loaded machine).
  assert.ok(took < 500 + 2500, `the trickled answer held the reading ${Math.round(took)} ms`);
  assert.match((await failure(at('numbers').commit(1))).message, /not CometBFT's: it holds more than 200000 values/);
  assert.match((await failure(at('other').commit(5))).message, /did not give the commit of block 5: it answered with the commit of block 999999999999999$/);
  assert.equal((await at('same').commit(5)).height, 5);
});
