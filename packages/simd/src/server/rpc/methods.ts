/**
 * Every RPC method by name, and how one call runs. `subscribe`, `unsubscribe` and `unsubscribe_all`
 * exist only on the websocket; over HTTP they are "Method not found", as in CometBFT.
 */
import { abciMethods } from './abci.js';
import type { RpcBackend, RpcMethod } from './backend.js';
import { blockMethods } from './blocks.js';
import { consensusMethods } from './consensus.js';
import { infoMethods } from './info.js';
import { internalError, invalidParams, methodNotFound, ParamError } from './jsonrpc.js';
import { Params } from './params.js';
import { txMethods } from './txs.js';

export const methods: Readonly<Record<string, RpcMethod>> = { ...infoMethods, ...abciMethods, ...blockMethods, ...consensusMethods, ...txMethods };

export const websocketOnly: ReadonlySet<string> = new Set(['subscribe', 'unsubscribe', 'unsubscribe_all']);

export function lookup(name: string): RpcMethod | undefined {
  return Object.hasOwn(methods, name) ? methods[name] : undefined;
}

/**
 * Runs a JSON-RPC call. Parameter errors are worded per transport as CometBFT words them: HTTP
 * JSON-RPC answers -32602, the websocket -32603, both "error converting json params to arguments: …".
 */
export async function callJson(name: string, rawParams: unknown, backend: RpcBackend, transport: 'http' | 'websocket'): Promise<unknown> {
  const method = lookup(name);
  if (method === undefined || (transport === 'http' && websocketOnly.has(name))) throw methodNotFound();
  try {
    return await method.run(Params.fromJson(rawParams, method.args), backend);
  } catch (error) {
    if (!(error instanceof ParamError)) throw error;
    const data = `error converting json params to arguments: ${error.message}`;
    throw transport === 'http' ? invalidParams(data) : internalError(data);
  }
}

/** Runs a URI call (`GET /block?height=5`); a parameter error is -32602 "error converting http params to arguments: …". */
export async function callUri(method: RpcMethod, search: URLSearchParams, backend: RpcBackend): Promise<unknown> {
  try {
    return await method.run(Params.fromUri(search), backend);
  } catch (error) {
    if (error instanceof ParamError) throw invalidParams(`error converting http params to arguments: ${error.message}`);
    throw error;
  }
}
