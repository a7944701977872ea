/**
 * How the CLI reaches a running node: `--node tcp://host:port` (its RPC), or the addresses file the
 * node wrote under `--home`, or the default `tcp://127.0.0.1:26657`. Everything goes over the
 * CometBFT JSON-RPC: queries as ABCI queries, transactions with broadcast_tx_commit.
 */
import os from 'node:os';
import path from 'node:path';

import { readAddresses } from '../node/addresses.js';
import { SimError } from '../util/errors.js';

export function defaultHome(name: string): string {
  return path.join(os.homedir(), `.${name}`);
}

export async function resolveNode(strings: Readonly<Record<string, string>>, name: string): Promise<string> {
  const node = strings.node ?? (await readAddresses(strings.home ?? defaultHome(name)))?.rpc ?? 'tcp://127.0.0.1:26657';
  return node.replace(/^tcp:\/\//, 'http://').replace(/\/+$/, '');
}

export class QueryFailed extends SimError {
  readonly abciCode: number;
  readonly codespace: string;
  constructor(log: string, abciCode: number, codespace: string) {
    super('SIM_QUERY_FAILED', log);
    this.abciCode = abciCode;
    this.codespace = codespace;
  }
}

/**
 * The error the SDK's client makes of a failed ABCI query (client/grpc_query.go sdkErrorToGRPCError),
 * which its CLI prints: `rpc error: code = <Code> desc = <log>`.
 */
function queryErrorText(response: { code: number; log: string; codespace: string }): string {
  const sdk = response.codespace === 'sdk';
  const code =
    sdk && response.code === 18 ? 'InvalidArgument' : sdk && response.code === 4 ? 'Unauthenticated' : sdk && response.code === 22 ? 'NotFound' : 'Unknown';
  return `rpc error: code = ${code} desc = ${response.log}`;
}

export async function rpcCall(node: string, method: string, params: Record<string, unknown> = {}): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(node, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
  } catch (error) {
    throw new SimError('SIM_NODE_UNREACHABLE', `cannot reach the node at ${node}`, {
      cause: error,
      hint: 'is the node running? pass --node tcp://host:port or the --home of the running node',
    });
  }
  const body = (await response.json()) as { result?: unknown; error?: { message: string; data?: string } };
  if (body.error !== undefined) {
    throw new SimError('SIM_RPC_ERROR', `${method}: ${body.error.data ?? body.error.message}`);
  }
  return body.result;
}

/** An ABCI query at `height` (0 = latest, as `--height`). */
export async function abciQuery(node: string, queryPath: string, data: Uint8Array = new Uint8Array(), height = 0): Promise<Buffer> {
  const params = { path: queryPath, data: Buffer.from(data).toString('hex'), ...(height === 0 ? {} : { height: String(height) }) };
  const result = (await rpcCall(node, 'abci_query', params)) as {
    response: { code: number; log: string; codespace: string; value: string | null };
  };
  const { response } = result;
  if (response.code !== 0) throw new QueryFailed(queryErrorText(response), response.code, response.codespace);
  return Buffer.from(response.value ?? '', 'base64');
}

export async function queryJson<T>(node: string, queryPath: string, request: unknown = {}, height = 0): Promise<T> {
  return JSON.parse((await abciQuery(node, queryPath, Buffer.from(JSON.stringify(request)), height)).toString('utf8')) as T;
}
