/**
 * The CometBFT RPC server (`--rpc.laddr`), routed as CometBFT routes it: `POST /` takes JSON-RPC
 * (one request or a batch; errors answer HTTP 200), `/<method>?arg=…` is a URI call (errors answer
 * HTTP 500), `/websocket` upgrades to JSON-RPC over a websocket with event subscriptions, `GET /`
 * lists the methods, and any other path is a plain 404. After each commit the node publishes the
 * block's events to the subscribers.
 */
import type http from 'node:http';

import { type WebSocket, WebSocketServer } from 'ws';

import type { BlockRecord } from '../../chain/block.js';
import { createServer, readBody, sendJson } from '../http.js';
import type { RpcBackend } from './backend.js';
import { blockEvents, EventBus } from './events.js';
import { asRpcError, failure, methodNotFound, parseError, type RpcResponse, success } from './jsonrpc.js';
import { callJson, callUri, lookup, methods, websocketOnly } from './methods.js';
import { serveWebsocket } from './websocket.js';

export type { Broadcast, RpcBackend } from './backend.js';

export interface RpcServer {
  http: http.Server;
  /** Sends a committed block's events to the matching subscriptions. */
  publish(block: BlockRecord): Promise<void>;
  /** Ends every subscription (CometBFT's "subscription was canceled") and closes the websockets. */
  closeSockets(): Promise<void>;
}

function sendText(res: http.ServerResponse, status: number, text: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': type, 'x-content-type-options': 'nosniff', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function endpointList(req: http.IncomingMessage): string {
  const host = req.headers.host ?? '';
  const names = [...Object.keys(methods), ...websocketOnly].sort();
  const links = names.map((name) => `<a href="//${host}/${name}">//${host}/${name}</a></br>`).join('\n');
  return `<html><body>\n<br>Available endpoints:<br>\n${links}\n</body></html>\n`;
}

async function jsonRpc(body: string, backend: RpcBackend): Promise<{ status: number; response?: RpcResponse | RpcResponse[] }> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
    if (parsed === null || typeof parsed !== 'object') throw new Error('expected a JSON-RPC request object or array');
  } catch (error) {
    return { status: 500, response: failure(null, parseError(`error unmarshaling request: ${(error as Error).message}`)) };
  }
  const requests = (Array.isArray(parsed) ? parsed : [parsed]) as Array<{ id?: number | string | null; method?: unknown; params?: unknown }>;
  const responses: RpcResponse[] = [];
  for (const request of requests) {
    const { id } = request ?? {};
    if (id === undefined || id === null) continue;
    try {
      responses.push(success(id, await callJson(typeof request.method === 'string' ? request.method : '', request.params, backend, 'http')));
    } catch (error) {
      responses.push(failure(id, asRpcError(error)));
    }
  }
  if (responses.length === 0) return { status: 200 };
  // As CometBFT: one answer is written as an object, even for a batch of one.
  return { status: 200, response: responses.length === 1 ? responses[0] : responses };
}

async function handleHttp(req: http.IncomingMessage, res: http.ServerResponse, backend: RpcBackend): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const path = url.pathname;
  if (path === '/') {
    const body = await readBody(req);
    if (body.trim() === '') return sendText(res, 200, endpointList(req), 'text/html');
    const { status, response } = await jsonRpc(body, backend);
    if (response === undefined) return sendText(res, status, '');
    return sendJson(res, status, response);
  }
  if (path === '/websocket') {
    return sendText(res, 400, 'Bad Request\n');
  }
  const name = path.slice(1);
  if (websocketOnly.has(name)) return sendJson(res, 404, failure(-1, methodNotFound()));
  const method = lookup(name);
  if (method === undefined) return sendText(res, 404, '404 page not found\n');
  try {
    sendJson(res, 200, success(-1, await callUri(method, url.searchParams, backend)));
  } catch (error) {
    sendJson(res, 500, failure(-1, asRpcError(error)));
  }
}

export function createRpcServer(backend: RpcBackend): RpcServer {
  const bus = new EventBus();
  // CometBFT's rpc.max_body_bytes (1 MB) also limits a websocket message.
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 1_000_000 });
  const server = createServer((req, res) => {
    if (!/\bclose\b/i.test(req.headers.connection ?? '')) res.setHeader('connection', 'keep-alive');
    handleHttp(req, res, backend).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, failure(-1, asRpcError(error)));
    });
  });
  // CometBFT's server (Go's http.Server) lets an idle connection live for its read timeout, 10 s, where
  // Node's default is 5 s, and does not say so: no `Keep-Alive: timeout` header, which Node leaves out
  // when the response names its connection itself. A client then keeps its connection as long as its
  // own setting says, as it would there.
  server.keepAliveTimeout = 10_000;
  server.on('upgrade', (req: http.IncomingMessage, socket, head) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/websocket') {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n404 page not found\n');
      return;
    }
    sockets.handleUpgrade(req, socket, head, (ws: WebSocket) => serveWebsocket(ws, backend, bus));
  });
  return {
    http: server,
    async publish(block) {
      if (!bus.idle) bus.publish(await blockEvents(backend, block));
    },
    async closeSockets() {
      bus.close();
      await Promise.all(
        [...sockets.clients].map(
          (ws) =>
            new Promise<void>((resolve) => {
              if (ws.readyState === ws.CLOSED) return resolve();
              // A client that does not answer the close frame is cut off.
              const cut = setTimeout(() => ws.terminate(), 1000);
              ws.once('close', () => {
                clearTimeout(cut);
                resolve();
              });
              ws.close(1001, 'the node is shutting down');
            }),
        ),
      );
      sockets.close();
    },
  };
}
