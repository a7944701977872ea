/**
 * The NewBlock subscription (src/chain/subscription.ts, issue #35) against a local websocket
 * server speaking CometBFT's `subscribe`: the request it sends, a message as a wake-up, the end said
 * when the server closes or refuses, and nothing to dial on port 0.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';

import { WebSocketServer } from 'ws';

import { newBlockQuery, subscribeNewBlocks } from '../../src/chain/index.js';
import { waitFor } from '../support/home.js';

async function server(onUpgrade?: (req: http.IncomingMessage) => boolean) {
  const httpServer = http.createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ noServer: true });
  const requests: unknown[] = [];
  httpServer.on('upgrade', (req, socket, head) => {
    if (req.url !== '/websocket' || (onUpgrade && !onUpgrade(req))) return void socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('message', (data) => {
        const request = JSON.parse(String(data)) as { id: number };
        requests.push(request);
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: {} }));
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { query: newBlockQuery, data: { type: 'tendermint/event/NewBlock', value: {} } } }));
      });
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  return {
    address: `tcp://127.0.0.1:${(httpServer.address() as AddressInfo).port}`,
    requests,
    wss,
    close: () => {
      for (const ws of wss.clients) ws.terminate();
      return new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

test('subscribes to NewBlock with CometBFT’s request; each message wakes; a close by the node is an end', async (t) => {
  const s = await server();
  t.after(() => s.close());
  let blocks = 0;
  let ended: string | undefined;
  const sub = subscribeNewBlocks({ address: s.address, onBlock: () => (blocks += 1), onEnd: (reason) => (ended = reason) });
  assert.ok(sub);
  await waitFor(() => blocks >= 2, 'the answer and the NewBlock');
  assert.deepEqual(s.requests, [{ jsonrpc: '2.0', id: 1, method: 'subscribe', params: { query: "tm.event='NewBlock'" } }]);
  for (const ws of s.wss.clients) ws.close(1001, 'node stopping');
  await waitFor(() => ended !== undefined, 'the end');
  assert.match(String(ended), /websocket closed \(1001: node stopping\)/);
});

test('a node that refuses the websocket is an end (the follow polls); closing stops everything; port 0 is nothing to dial', async (t) => {
  const s = await server(() => false);
  t.after(() => s.close());
  let ended: string | undefined;
  subscribeNewBlocks({ address: s.address, onBlock: () => assert.fail('no block'), onEnd: (reason) => (ended = reason) });
  await waitFor(() => ended !== undefined, 'the end');
  assert.match(String(ended), /^websocket (error|closed)/);

  const open = await server();
  t.after(() => open.close());
  let blocks = 0;
  const sub = subscribeNewBlocks({ address: open.address, onBlock: () => (blocks += 1), onEnd: () => assert.fail('closed by the caller: no end reported') });
  sub?.close();
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(blocks, 0);
  assert.equal(subscribeNewBlocks({ address: 'tcp://127.0.0.1:0', onBlock: () => undefined, onEnd: () => undefined }), undefined);
});
