/**
 * `/websocket`: CometBFT's JSON-RPC over a websocket. Every method is callable; `subscribe`,
 * `unsubscribe` and `unsubscribe_all` manage this connection's subscriptions, which end when it
 * closes. Requests without an id are notifications and get no answer (rpc/jsonrpc/server/ws_handler.go).
 */
import { WebSocket } from 'ws';

import type { RpcBackend } from './backend.js';
import type { EventBus } from './events.js';
import { asRpcError, failure, parseError, type RpcId, type RpcResponse, success } from './jsonrpc.js';
import { callJson } from './methods.js';
import { Params } from './params.js';

interface Request {
  id?: RpcId;
  method?: unknown;
  params?: unknown;
}

export function serveWebsocket(ws: WebSocket, backend: RpcBackend, bus: EventBus): void {
  const key = {};
  const send = (response: RpcResponse) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(response));
  };
  const subscriptions = (name: string, params: unknown, id: RpcId): object | undefined => {
    const query = () => Params.fromJson(params, ['query']).string('query') ?? '';
    if (name === 'subscribe') bus.subscribe(key, send, query(), id);
    else if (name === 'unsubscribe') bus.unsubscribe(key, query());
    else if (name === 'unsubscribe_all') bus.unsubscribeAll(key);
    else return undefined;
    return {};
  };
  const handle = async (text: string) => {
    let request: Request;
    try {
      request = JSON.parse(text) as Request;
      if (request === null || typeof request !== 'object' || Array.isArray(request)) throw new Error('expected a JSON-RPC request object');
    } catch (error) {
      send(failure(null, parseError(`error unmarshaling request: ${(error as Error).message}`)));
      return;
    }
    const { id } = request;
    if (id === undefined || id === null) return;
    const name = typeof request.method === 'string' ? request.method : '';
    try {
      send(success(id, subscriptions(name, request.params, id) ?? (await callJson(name, request.params, backend, 'websocket'))));
    } catch (error) {
      send(failure(id, asRpcError(error)));
    }
  };
  ws.on('message', (data) => void handle(String(data)));
  ws.on('close', () => bus.drop(key));
  // A broken connection ends like a closed one (the close event follows).
  ws.on('error', () => undefined);
}
