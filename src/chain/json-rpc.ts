/**
 * The one CometBFT JSON-RPC client, for every RPC chainvisor asks (issue #31): a GET of a route and its
 * params, sent by one of the two transports below, the body read within a size bound, parsed within
 * depth and container bounds (shared/json.ts), the JSON-RPC envelope unwrapped, and its `result` checked
 * against a schema of answers.ts. What a node sends is not trusted: none of it is used before all of
 * that passed. Each way a call fails is one RpcProblem, which the caller words (rpc-client.ts for the
 * node's RPC, network.ts for the network's).
 */
import type { Agent } from 'undici';
import * as v from 'valibot';

import { type RpcEndpoint, rpcEndpoint } from '../config/index.js';
import { checkShape, type JsonBounds, parseJsonValue } from '../shared/json.js';
import { asTransportError, basicAuthorization, classifyFailure, type HttpClient, readSome, splitCredentials, TransportTimeout } from '../shared/net/index.js';
import { knockOn } from './knock.js';

export type RpcParams = Readonly<Record<string, string>>;

export type RpcProblem =
  /** No answer: the transport's words for why (refused, no answer in time, a proxy's failure…). */
  | { kind: 'unreachable'; cause: Error }
  | { kind: 'too-large'; maxBytes: number }
  /** The node's JSON-RPC `error`: its `data`, else its `message`; undefined when it has neither as text. */
  | { kind: 'error'; said: string | undefined }
  | { kind: 'http'; statusCode: number }
  | { kind: 'not-json'; reason: string }
  | { kind: 'not-rpc'; reason: string }
  | { kind: 'no-result' }
  | { kind: 'shape'; reason: string };

/** A call that failed; `problem` says how. */
export class RpcFailure extends Error {
  constructor(readonly problem: RpcProblem) {
    super(`the JSON-RPC call failed (${problem.kind})`);
    this.name = 'RpcFailure';
  }
}

/** How requests reach one RPC: the node's own (nodeTransport) or another node's, over the network (networkTransport). */
export interface RpcTransport {
  /**
   * GET `route` with `params`: the status and the body, read to at most `maxBytes` + 1 bytes (more is
   * never read); an RpcFailure of kind `unreachable` when no answer came.
   */
  send(route: string, params: RpcParams, maxBytes: number, signal?: AbortSignal): Promise<{ statusCode: number; body: Buffer }>;
  close(): void;
}

export interface RpcCallOptions {
  params?: RpcParams;
  /** A smaller size bound than the client's, for an answer known to be small. */
  maxBytes?: number;
  /** Ends the call (the network's transport; the node's has its own deadline). */
  signal?: AbortSignal;
}

export interface RpcClient {
  /** The `result` of GET `route`, checked against `answer`; else an RpcFailure. */
  call<S extends v.GenericSchema>(route: string, answer: S, options?: RpcCallOptions): Promise<v.InferOutput<S>>;
  close(): void;
}

/**
 * Objects and arrays in one answer. The largest a node gives, /dump_consensus_state of a set of 10 000
 * validators, has about 50 000; 4 MB of `[[],[],…]` has 1.3 million, which parsed held `run` at 450 MB.
 */
export const maxAnswerContainers = 100_000;

/** The JSON-RPC envelope: the `result`, or the node's `error`. (An object schema lets an array through.) */
const envelope = v.object({ result: v.optional(v.unknown()), error: v.optional(v.unknown()) });

const rpcError = v.object({ message: v.optional(v.string()), data: v.optional(v.string()) });

export function createJsonRpcClient(transport: RpcTransport, bounds: Required<Omit<JsonBounds, 'maxEntries'>> & JsonBounds): RpcClient {
  async function call<S extends v.GenericSchema>(route: string, answer: S, options: RpcCallOptions = {}): Promise<v.InferOutput<S>> {
    const maxBytes = options.maxBytes ?? bounds.maxBytes;
    const { statusCode, body } = await transport.send(route, options.params ?? {}, maxBytes, options.signal);
    const fail = (problem: RpcProblem) => new RpcFailure(problem);
    if (body.length > maxBytes) throw fail({ kind: 'too-large', maxBytes });
    const parsed = parseJsonValue(body.toString('utf8'), { ...bounds, maxBytes });
    const rpc = parsed.ok ? checkShape(parsed.value, envelope) : parsed;
    if (rpc.ok && rpc.value.error !== undefined && rpc.value.error !== null) {
      const error = checkShape(rpc.value.error, rpcError);
      throw fail({ kind: 'error', said: error.ok ? (error.value.data ?? error.value.message) : undefined });
    }
    // A proxy's error page while the node restarts is the node being away, not a wrong answer.
    if (statusCode !== 200) throw fail({ kind: 'http', statusCode });
    if (!parsed.ok) throw fail({ kind: 'not-json', reason: parsed.reason });
    if (!rpc.ok) throw fail({ kind: 'not-rpc', reason: rpc.reason });
    const result = rpc.value.result;
    if (result === null || typeof result !== 'object' || Array.isArray(result)) throw fail({ kind: 'no-result' });
    const checked = checkShape(result, answer);
    if (!checked.ok) throw fail({ kind: 'shape', reason: checked.reason });
    return checked.value;
  }
  return { call, close: () => transport.close() };
}

/** The websocket's one request: a subscription to the events `query` selects (CometBFT's `subscribe`). */
export function subscribeRequest(query: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscribe', params: { query } });
}

/** `route` under `base` (its path and query kept), with `params` added to the query. */
function routeUrl(base: URL, route: string, params: RpcParams): URL {
  const url = new URL(base.href);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${route}`;
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url;
}

const unreachable = (cause: Error) => new RpcFailure({ kind: 'unreachable', cause });

/** Where the node's RPC at `address` is dialled, and the origin of its URLs; undefined when it cannot be dialled. */
export function nodeDialling(address: string, scheme: 'http' | 'ws'): { endpoint: RpcEndpoint; origin: string } | undefined {
  const endpoint = rpcEndpoint(address);
  if (endpoint === undefined || (endpoint.kind === 'tcp' && endpoint.port === 0)) return undefined;
  const host = endpoint.kind === 'tcp' ? `${endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host}:${endpoint.port}` : 'localhost';
  return { endpoint, origin: `${scheme}://${host}` };
}

/** The `connect` options of an undici agent of the node's own: a unix socket by its path. */
export function nodeConnect(endpoint: RpcEndpoint, timeoutMs: number): { timeout: number; socketPath?: string } {
  return { timeout: timeoutMs, ...(endpoint.kind === 'unix' ? { socketPath: endpoint.path } : {}) };
}

/**
 * The node's own RPC: loopback or a unix socket, on an undici Agent of its own (never a proxy), kept
 * between calls. undici is loaded at the first call that finds the port open: a bare TCP knock comes
 * first until the node has answered, and again after each failure, so a node not up yet never costs
 * its 23 MiB. Every call has a deadline, `timeoutMs`, that covers the connection, the head and the body.
 */
export function nodeTransport(options: { address: string; timeoutMs: number }): RpcTransport {
  const { timeoutMs } = options;
  const dialling = nodeDialling(options.address, 'http');
  let agent: Agent | undefined;
  let knock = true;
  return {
    async send(route, params, maxBytes) {
      if (dialling === undefined) throw unreachable(new Error('not an address to connect to'));
      const { endpoint, origin } = dialling;
      if (knock) {
        const closed = await knockOn(endpoint.kind === 'unix' ? { path: endpoint.path } : endpoint, timeoutMs);
        if (closed !== undefined) throw unreachable(closed);
      }
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        const undici = await import('undici');
        agent ??= new undici.Agent({ connect: nodeConnect(endpoint, timeoutMs), headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
        const url = routeUrl(new URL(origin), route, params);
        const response = await undici.request(url, { dispatcher: agent, signal, headers: { accept: 'application/json' } });
        const body = await readSome(response.body, maxBytes + 1);
        knock = false;
        return { statusCode: response.statusCode, body };
      } catch (error) {
        knock = true;
        // A failure of the network in the words downloads and webhooks use (shared/net/failure.ts).
        const failure = classifyFailure(error);
        // The deadline is the signal's and undici's own (headers, body), all `timeoutMs`: whichever of
        // their timers fires first on a loaded host, the node did not answer in time. A connection not
        // made in time keeps its own reason (the knock before it makes that rare).
        const timeout = asTransportError(error, timeoutMs);
        const late = signal.aborted || (timeout instanceof TransportTimeout && timeout.phase !== 'connect');
        if (late) throw unreachable(new Error(`no answer within ${timeoutMs} ms`));
        throw unreachable(failure === undefined ? (error as Error) : new Error(failure.reason, { cause: error }));
      }
    },
    close() {
      void agent?.close().catch(() => undefined);
      agent = undefined;
    },
  };
}

/**
 * Another node's RPC, over the network: through chainvisor's one HTTP client (shared/net: the proxies
 * per Go's rules and the CAs of the host, as downloads), its URL's path and query kept, credentials in
 * it sent as Basic authorization. Every answer has a deadline, `timeoutMs`, for all of it: the
 * connection, the head and the last byte of the body (the client's own limits are per phase, and a body
 * that trickles a byte a second never trips them); the caller's signal may end it sooner.
 */
export function networkTransport(options: {
  url: URL;
  client: HttpClient;
  timeoutMs: number;
}): { ok: true; transport: RpcTransport } | { ok: false; problem: string } {
  const { client, timeoutMs } = options;
  const split = splitCredentials(options.url);
  if (!split.ok) return split;
  const base = split.url;
  const authorization = split.credentials === undefined ? undefined : basicAuthorization(split.credentials);
  const headers: Record<string, string> = { accept: 'application/json', ...(authorization === undefined ? {} : { authorization }) };
  const transport: RpcTransport = {
    async send(route, params, maxBytes, signal) {
      // undici ends the body with the request's signal: the deadline holds while the body is read.
      const deadline = AbortSignal.timeout(timeoutMs);
      try {
        const response = await client.request(routeUrl(base, route, params), {
          headers,
          signal: signal === undefined ? deadline : AbortSignal.any([signal, deadline]),
        });
        return { statusCode: response.statusCode, body: await readSome(response.body, maxBytes + 1) };
      } catch (error) {
        // The caller's own deadline (a whole check or reading) is CHAINVISOR_TWIN_TIMEOUT too.
        const late = deadline.aborted || (signal?.reason as Error | undefined)?.name === 'TimeoutError';
        const reason = late ? `no answer within ${timeoutMs} ms` : signal?.aborted ? 'no answer in time' : describeFailure(error);
        throw unreachable(new Error(reason, { cause: error }));
      }
    },
    // The client is the caller's, shared by its readers.
    close: () => undefined,
  };
  return { ok: true, transport };
}

/** A transport failure in a few words, with its code: `connect ECONNREFUSED 127.0.0.1:26657 (ECONNREFUSED)`. */
function describeFailure(error: unknown): string {
  // The client's own timeout names the download setting; here the limit is CHAINVISOR_TWIN_TIMEOUT.
  if (error instanceof TransportTimeout) return `no answer within ${error.limitMs} ms (${error.phase})`;
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
}
