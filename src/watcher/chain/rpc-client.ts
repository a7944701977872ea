/**
 * The same two readings as the gRPC client, over the node's CometBFT RPC, which every node serves
 * (many validators turn gRPC off or bind it elsewhere):
 *   GET /abci_query?path="/cosmos.upgrade.v1beta1.Query/CurrentPlan" → `result.response.value`, base64
 *       of the QueryCurrentPlanResponse protobuf (cosmjs-types' codec, as over gRPC);
 *   GET /status → `result.sync_info.latest_block_height`.
 * undici (the project's one HTTP client) on a plain Agent: loopback or a unix socket, never a proxy.
 * It is loaded at the first call that finds the port open (a bare TCP knock first, until the node has
 * answered, and again after each failure), so a node whose gRPC answers — or a node not up yet — never
 * costs its 23 MiB. Every call has a deadline that covers the connection, the head and the body.
 */
import { QueryCurrentPlanResponse } from 'cosmjs-types/cosmos/upgrade/v1beta1/query.js';
import type { Agent } from 'undici';

import { rpcEndpoint } from '../../config/index.js';
import { classifyFailure } from '../../shared/net/index.js';
import type { ChainClient } from './client.js';
import { ChainUnavailableError } from './errors.js';
import { knockOn } from './knock.js';

export interface RpcClientOptions {
  /** `tcp://host:port`, `http://host:port`, `host:port` or `unix:///path`. */
  address: string;
  /** Deadline of one call; default 5 s. */
  timeoutMs?: number;
}

/** Answers of /status and abci_query are a few KiB; a larger body is not a node's. */
const maxBodyBytes = 4 * 1024 * 1024;

const currentPlanPath = `/abci_query?path=${encodeURIComponent('"/cosmos.upgrade.v1beta1.Query/CurrentPlan"')}`;

/** One node's RPC: GETs answering the JSON-RPC `result`, on one undici agent kept between calls. */
export interface RpcTransport {
  address: string;
  via: string;
  /** One GET; the JSON-RPC `result`, or a ChainUnavailableError saying why not (`what` names the reading). */
  get(urlPath: string, what: string): Promise<Record<string, unknown>>;
  close(): void;
}

export function createRpcTransport(options: RpcClientOptions): RpcTransport {
  const address = options.address;
  const timeoutMs = options.timeoutMs ?? 5000;
  const endpoint = rpcEndpoint(address);
  const via = `the node's RPC at ${address}`;
  const origin =
    endpoint?.kind === 'tcp' ? `http://${endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host}:${endpoint.port}` : 'http://localhost';
  let agent: Agent | undefined;
  // Knock before asking until the node answers, and again after a failure: see the opening comment.
  let knock = true;

  /** One GET; the JSON-RPC `result`, or a ChainUnavailableError saying why not. */
  async function get(urlPath: string, what: string): Promise<Record<string, unknown>> {
    const fail = (cause: unknown) => new ChainUnavailableError(address, what, cause, via);
    if (endpoint === undefined || (endpoint.kind === 'tcp' && endpoint.port === 0)) throw fail(new Error('not an address to connect to'));
    if (knock) {
      const closed = await knockOn(endpoint.kind === 'unix' ? { path: endpoint.path } : endpoint, timeoutMs);
      if (closed !== undefined) throw fail(closed);
    }
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const undici = await import('undici');
      agent ??= new undici.Agent({
        connect: { timeout: timeoutMs, ...(endpoint.kind === 'unix' ? { socketPath: endpoint.path } : {}) },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const response = await undici.request(`${origin}${urlPath}`, { dispatcher: agent, signal, headers: { accept: 'application/json' } });
      let size = 0;
      const chunks: Buffer[] = [];
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBodyBytes) throw new Error(`the answer is larger than ${maxBodyBytes} bytes`);
        chunks.push(chunk);
      }
      const text = Buffer.concat(chunks).toString('utf8');
      const body = parseJson(text);
      if (body?.error !== undefined) {
        const error = body.error as { message?: string; data?: string };
        throw new Error(`the node answered an error: ${error.data ?? error.message ?? JSON.stringify(error)}`);
      }
      if (response.statusCode !== 200) throw new Error(`the node answered HTTP ${response.statusCode}`);
      const result = body?.result;
      if (result === null || typeof result !== 'object') throw new Error('the answer has no result');
      knock = false;
      return result as Record<string, unknown>;
    } catch (error) {
      knock = true;
      // A failure of the network in the words downloads and webhooks use (shared/net/failure.ts).
      const failure = classifyFailure(error);
      throw fail(signal.aborted ? new Error(`no answer within ${timeoutMs} ms`) : failure === undefined ? error : new Error(failure.reason, { cause: error }));
    }
  }

  return {
    address,
    via,
    get,
    close() {
      void agent?.close().catch(() => undefined);
      agent = undefined;
    },
  };
}

export function createRpcClient(options: RpcClientOptions): ChainClient {
  const transport = createRpcTransport(options);
  const { address, via, get } = transport;
  return {
    address,
    describe: () => via,
    async currentPlan() {
      const what = 'the scheduled upgrade plan';
      const result = await get(currentPlanPath, what);
      const response = result.response as { code?: number; log?: string; value?: string | null } | undefined;
      if (response === undefined) throw new ChainUnavailableError(address, what, new Error('the answer has no response'), via);
      if ((response.code ?? 0) !== 0)
        throw new ChainUnavailableError(address, what, new Error(`the query failed (code ${response.code}): ${response.log ?? ''}`), via);
      let plan;
      try {
        plan = QueryCurrentPlanResponse.decode(Buffer.from(response.value ?? '', 'base64')).plan;
      } catch (error) {
        throw new ChainUnavailableError(address, what, new Error(`the answer is not a QueryCurrentPlanResponse: ${(error as Error).message}`), via);
      }
      if (plan === undefined || plan.name === '') return null;
      return { name: plan.name, height: Number(plan.height), info: plan.info };
    },
    async latestHeight() {
      const what = 'the latest block height';
      const result = await get('/status', what);
      const height = (result.sync_info as { latest_block_height?: unknown } | undefined)?.latest_block_height;
      if (typeof height !== 'string' || !/^\d+$/.test(height))
        throw new ChainUnavailableError(address, what, new Error('the answer has no sync_info.latest_block_height'), via);
      return Number(height);
    },
    close: () => transport.close(),
  };
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    throw new Error(`the answer is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
  }
}
