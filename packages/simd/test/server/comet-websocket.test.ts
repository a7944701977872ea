/**
 * `/websocket`: CosmJS subscriptions (Comet38Client and Tendermint37Client) receive NewBlock,
 * NewBlockHeader and Tx events; methods answer over the socket; raw frames show CometBFT's envelopes
 * and errors, and a stopping node cancels subscriptions and closes the socket.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Comet38Client, Tendermint37Client } from '@cosmjs/tendermint-rpc';
import { WebSocket } from 'ws';

import { cli, simFixture, startNode, waitFor } from '../support/node-harness.js';

interface Listenable<T> {
  subscribe(listener: { next(value: T): void; error(error: unknown): void; complete(): void }): { unsubscribe(): void };
}

/** The first `count` events of a CosmJS stream. */
function take<T>(stream: Listenable<T>, count: number): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const items: T[] = [];
    const subscription = stream.subscribe({
      next(value) {
        items.push(value);
        if (items.length === count) {
          queueMicrotask(() => subscription.unsubscribe());
          resolve(items);
        }
      },
      error: reject,
      complete: () => reject(new Error(`the stream ended after ${items.length} events`)),
    });
  });
}

async function propose(bin: string, home: string): Promise<{ txhash: string; height: string }> {
  const r = await cli(bin, [
    'tx',
    'upgrade',
    'software-upgrade',
    'v2',
    '--title',
    'upgrade v2',
    '--summary',
    'test',
    '--deposit',
    '10000000stake',
    '--upgrade-height',
    '100000',
    '--no-validate',
    '--from',
    'validator',
    '--home',
    home,
    '--yes',
    '--output',
    'json',
  ]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as { txhash: string; height: string };
}

/**
 * Disconnects a CosmJS websocket client for good. Its ReconnectingSocket reacts to the Disconnected
 * status that disconnect() itself sets by scheduling a reconnect, which would keep the test process
 * alive; that timer is cleared here.
 */
function disconnect(client: { disconnect(): void }): void {
  client.disconnect();
  const socket = (client as unknown as { client?: { socket?: { reconnectTimeout?: NodeJS.Timeout | null } } }).client?.socket;
  if (socket?.reconnectTimeout) clearTimeout(socket.reconnectTimeout);
}

/** A raw websocket that keeps every frame it receives. */
async function rawSocket(url: string) {
  const ws = new WebSocket(url);
  const frames: any[] = [];
  let closed: number | undefined;
  ws.on('message', (data) => frames.push(JSON.parse(String(data))));
  ws.on('close', (code) => {
    closed = code;
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return {
    ws,
    frames,
    closed: () => closed,
    send: (body: unknown) => ws.send(JSON.stringify(body)),
    frame: (match: (f: any) => boolean, what: string) => waitFor(() => frames.find(match), what),
  };
}

test('CosmJS subscribes to NewBlock, NewBlockHeader and Tx over /websocket', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const bin = fx.bin('genesis');
  const node = await startNode(t, bin, home);
  await node.waitForHeight(1);
  // CosmJS appends `/websocket` to the address it is given.
  const wsUrl = node.addresses.rpc.replace(/^tcp:/, 'ws:');

  const clients: Array<{ disconnect(): void }> = [];
  const disconnectAll = () => clients.splice(0).forEach(disconnect);
  t.after(disconnectAll);
  const client = await Comet38Client.connect(wsUrl);
  clients.push(client);
  assert.equal((await client.status()).nodeInfo.network, 'sim-1');

  const blocks = take(client.subscribeNewBlock(), 3);
  const headers = take(client.subscribeNewBlockHeader(), 2);
  const txs = take(client.subscribeTx(), 1);
  const newBlocks = await blocks;
  const heights = newBlocks.map((b) => b.header.height);
  assert.deepEqual(heights, [heights[0], (heights[0] as number) + 1, (heights[0] as number) + 2]);
  assert.ok(newBlocks.every((b) => b.header.chainId === 'sim-1' && b.lastCommit?.signatures.length === 1));
  const newHeaders = await headers;
  assert.equal(newHeaders[1]?.height, (newHeaders[0]?.height as number) + 1);

  const { txhash, height } = await propose(bin, home);
  const [tx] = await txs;
  assert.equal(
    Buffer.from(tx?.hash ?? [])
      .toString('hex')
      .toUpperCase(),
    txhash,
  );
  assert.equal(tx?.height, Number(height));
  assert.equal(tx?.result.code, 0);
  assert.ok(tx?.result.events.some((e) => e.type === 'submit_proposal'));

  // A block read over the socket is the one the event carried.
  const again = await client.block(heights[0]);
  assert.deepEqual(again.block.header, newBlocks[0]?.header);

  // The 0.37 client decodes the same events.
  const t37 = await Tendermint37Client.connect(wsUrl);
  clients.push(t37);
  const [header37] = await take(t37.subscribeNewBlockHeader(), 1);
  assert.ok((header37?.height ?? 0) > Number(height));
  const [block37] = await take(t37.subscribeNewBlock(), 1);
  assert.equal(block37?.header.chainId, 'sim-1');

  disconnectAll();
  assert.equal((await node.stop()).code, 0);
});

test('websocket frames: CometBFT envelopes, query filters, errors, and the close at shutdown', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const bin = fx.bin('genesis');
  const node = await startNode(t, bin, home);
  await node.waitForHeight(1);
  const socket = await rawSocket(`${node.addresses.rpc.replace(/^tcp:/, 'ws:')}/websocket`);
  t.after(() => socket.ws.terminate());

  socket.send({ jsonrpc: '2.0', id: 'x', method: 'unknown_method', params: {} });
  assert.deepEqual(await socket.frame((f) => f.id === 'x', 'the unknown method answer'), {
    jsonrpc: '2.0',
    id: 'x',
    error: { code: -32601, message: 'Method not found' },
  });
  socket.send({ jsonrpc: '2.0', id: 1, method: 'health', params: {} });
  assert.deepEqual(await socket.frame((f) => f.id === 1, 'health'), { jsonrpc: '2.0', id: 1, result: {} });

  // Tx subscriptions filtered by attribute and by height: only the first matches the proposal.
  socket.send({ jsonrpc: '2.0', id: 10, method: 'subscribe', params: { query: "tm.event='Tx' AND tx.height<3" } });
  socket.send({ jsonrpc: '2.0', id: 2, method: 'subscribe', params: { query: "tm.event='Tx' AND submit_proposal.proposal_id='1'" } });
  socket.send({ jsonrpc: '2.0', id: 3, method: 'subscribe', params: { query: "tm.event='NewBlock'" } });
  assert.deepEqual(await socket.frame((f) => f.id === 2, 'the subscribe answer'), { jsonrpc: '2.0', id: 2, result: {} });
  // Another spelling of the same query is the same subscription.
  socket.send({ jsonrpc: '2.0', id: 4, method: 'subscribe', params: { query: "tm.event = 'NewBlock'" } });
  assert.deepEqual((await socket.frame((f) => f.id === 4, 'the second subscribe answer')).error, {
    code: -32603,
    message: 'Internal error',
    data: 'already subscribed',
  });
  socket.send({ jsonrpc: '2.0', id: 5, method: 'unsubscribe', params: { query: "tm.event='NewBlockHeader'" } });
  assert.equal((await socket.frame((f) => f.id === 5, 'the unsubscribe answer')).error.data, 'subscription not found');
  socket.send({ jsonrpc: '2.0', id: 6, method: 'subscribe', params: { query: 'tm.event=' } });
  assert.match((await socket.frame((f) => f.id === 6, 'the bad query answer')).error.data, /^failed to parse query/);

  const newBlock = await socket.frame((f) => f.id === 3 && f.result?.query !== undefined, 'a NewBlock event');
  assert.deepEqual(Object.keys(newBlock.result), ['query', 'data', 'events']);
  assert.equal(newBlock.result.query, "tm.event='NewBlock'");
  assert.equal(newBlock.result.data.type, 'tendermint/event/NewBlock');
  assert.deepEqual(Object.keys(newBlock.result.data.value), ['block', 'block_id', 'result_finalize_block']);
  assert.deepEqual(newBlock.result.events, { 'tm.event': ['NewBlock'] });

  await node.waitForHeight(3);
  const { txhash, height } = await propose(bin, home);
  const event = await socket.frame((f) => f.id === 2 && f.result?.query !== undefined, 'the Tx event');
  assert.equal(event.result.query, "tm.event='Tx' AND submit_proposal.proposal_id='1'");
  assert.equal(event.result.data.type, 'tendermint/event/Tx');
  // CometBFT's encoder leaves out the zero index of the first transaction.
  assert.deepEqual(Object.keys(event.result.data.value.TxResult), ['height', 'tx', 'result']);
  assert.equal(event.result.data.value.TxResult.height, height);
  assert.deepEqual(Object.keys(event.result.data.value.TxResult.result), ['gas_wanted', 'gas_used', 'events']);
  assert.deepEqual(event.result.events['tx.hash'], [txhash]);
  assert.deepEqual(event.result.events['tx.height'], [height]);
  assert.deepEqual(event.result.events['tm.event'], ['Tx']);
  assert.deepEqual(event.result.events['submit_proposal.proposal_id'], ['1']);
  assert.equal(socket.frames.filter((f) => f.id === 10 && f.result?.query !== undefined).length, 0);

  // unsubscribe_all ends the rest; a second one finds nothing.
  socket.send({ jsonrpc: '2.0', id: 7, method: 'unsubscribe_all', params: {} });
  assert.deepEqual(await socket.frame((f) => f.id === 7, 'unsubscribe_all'), { jsonrpc: '2.0', id: 7, result: {} });
  socket.send({ jsonrpc: '2.0', id: 8, method: 'unsubscribe_all', params: {} });
  assert.equal((await socket.frame((f) => f.id === 8, 'the second unsubscribe_all')).error.data, 'subscription not found');

  // A stopping node cancels the subscriptions it still has and closes the socket.
  socket.send({ jsonrpc: '2.0', id: 9, method: 'subscribe', params: { query: "tm.event='NewBlockHeader'" } });
  await socket.frame((f) => f.id === 9, 'the last subscribe answer');
  assert.equal((await node.stop()).code, 0);
  assert.deepEqual(await socket.frame((f) => f.id === 9 && f.error !== undefined, 'the cancellation'), {
    jsonrpc: '2.0',
    id: 9,
    error: { code: -32000, message: 'Server error', data: 'subscription was canceled (reason: CometBFT exited)' },
  });
  await waitFor(() => socket.closed(), 'the socket to close');
});
