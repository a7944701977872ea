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
 * Every answer is read within a size, parsed within a depth, and checked against the schema of what the
 * caller reads (answers.ts) before any of it is used: what the node sends is not trusted (issue #31).
 */
import { QueryCurrentPlanResponse } from 'cosmjs-types/cosmos/upgrade/v1beta1/query.js';
import type { Agent } from 'undici';
import * as v from 'valibot';

import { rpcEndpoint } from '../config/index.js';
import { checkShape, parseJsonValue, shownText } from '../shared/json.js';
import { asTransportError, classifyFailure, TransportTimeout } from '../shared/net/index.js';
import { abciQueryAnswer, latestHeightAnswer } from './answers.js';
import { ChainAnswerRefusedError, ChainUnavailableError } from './errors.js';
import { type ChainClient, planOf } from './grpc-client.js';
import { knockOn } from './knock.js';

export interface RpcClientOptions {
  /** `tcp://host:port`, `http://host:port`, `host:port` or `unix:///path`. */
  address: string;
  /** Deadline of one call; default 5 s. */
  timeoutMs?: number;
}

/**
 * The largest answer read by default. /consensus_state lists every vote of every round as text, and
 * grows with the validator set and the rounds of a stalled chain; /status and abci_query are a few KiB
 * (their callers pass less).
 */
export const maxAnswerBytes = 4 * 1024 * 1024;

/** No answer chainvisor reads is nested deeper than about 8; JSON.parse recurses, the check does not. */
const maxAnswerDepth = 32;

/**
 * Objects and arrays in one answer. The largest a node gives, /dump_consensus_state of a set of 10 000
 * validators, has about 50 000; 4 MB of `[[],[],…]` has 1.3 million, which parsed held `run` at 450 MB.
 */
const maxAnswerContainers = 100_000;

const currentPlanPath = `/abci_query?path=${encodeURIComponent('"/cosmos.upgrade.v1beta1.Query/CurrentPlan"')}`;

/** The JSON-RPC envelope: the `result`, or the node's `error`. */
const envelope = v.object({
  result: v.optional(v.unknown()),
  error: v.optional(v.unknown()),
});

const rpcError = v.object({ message: v.optional(v.string()), data: v.optional(v.string()) });

/** One node's RPC: GETs answering the JSON-RPC `result`, on one undici agent kept between calls. */
export interface RpcTransport {
  address: string;
  via: string;
  /**
   * One GET: the JSON-RPC `result` checked against `answer`, or a ChainUnavailableError saying why not
   * (`what` names the reading); a ChainAnswerRefusedError when the node answered something else.
   */
  get<S extends v.GenericSchema>(urlPath: string, what: string, answer: S, maxBytes?: number): Promise<v.InferOutput<S>>;
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

  async function get<S extends v.GenericSchema>(urlPath: string, what: string, answer: S, maxBytes = maxAnswerBytes): Promise<v.InferOutput<S>> {
    const fail = (cause: unknown) => new ChainUnavailableError(address, what, cause, via);
    const refuse = (reason: string) => new ChainAnswerRefusedError(address, what, shownText(reason, 300), via);
    if (endpoint === undefined || (endpoint.kind === 'tcp' && endpoint.port === 0)) throw fail(new Error('not an address to connect to'));
    if (knock) {
      const closed = await knockOn(endpoint.kind === 'unix' ? { path: endpoint.path } : endpoint, timeoutMs);
      if (closed !== undefined) throw fail(closed);
    }
    const signal = AbortSignal.timeout(timeoutMs);
    let text: string;
    let statusCode: number;
    try {
      const undici = await import('undici');
      agent ??= new undici.Agent({
        connect: { timeout: timeoutMs, ...(endpoint.kind === 'unix' ? { socketPath: endpoint.path } : {}) },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const response = await undici.request(`${origin}${urlPath}`, { dispatcher: agent, signal, headers: { accept: 'application/json' } });
      statusCode = response.statusCode;
      let size = 0;
      const chunks: Buffer[] = [];
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        // Thrown inside the loop: the iterator's return destroys the body, so the rest is never read.
        if (size > maxBytes) throw new ChainAnswerRefusedError(address, what, `the answer is larger than ${maxBytes} bytes`, via);
        chunks.push(chunk);
      }
      text = Buffer.concat(chunks).toString('utf8');
    } catch (error) {
      if (error instanceof ChainAnswerRefusedError) throw error;
      knock = true;
      // A failure of the network in the words downloads and webhooks use (shared/net/failure.ts).
      const failure = classifyFailure(error);
      // The deadline is the signal's and undici's own (headers, body), all `timeoutMs`: whichever of
      // their timers fires first on a loaded host, the node did not answer in time. A connection not
      // made in time keeps its own reason (the knock before it makes that rare).
      const timeout = asTransportError(error, timeoutMs);
      const late = signal.aborted || (timeout instanceof TransportTimeout && timeout.phase !== 'connect');
      throw fail(late ? new Error(`no answer within ${timeoutMs} ms`) : failure === undefined ? error : new Error(failure.reason, { cause: error }));
    }
    knock = false;
    const parsed = parseJsonValue(text, { maxBytes, maxDepth: maxAnswerDepth, maxContainers: maxAnswerContainers });
    const body = parsed.ok ? checkShape(parsed.value, envelope) : parsed;
    if (body.ok && body.value.error !== undefined) {
      const error = checkShape(body.value.error, rpcError);
      const said = error.ok ? (error.value.data ?? error.value.message) : undefined;
      throw fail(new Error(`the node answered an error: ${said === undefined ? 'of no known shape' : shownText(said)}`));
    }
    // A proxy's error page while the node restarts is the node being away, not a wrong answer.
    if (statusCode !== 200) throw fail(new Error(`the node answered HTTP ${statusCode}`));
    if (!parsed.ok) throw refuse(parsed.reason);
    if (!body.ok) throw refuse(`it is not a JSON-RPC answer (${body.reason})`);
    const result = body.value.result;
    if (result === null || typeof result !== 'object' || Array.isArray(result)) throw refuse('the answer has no result');
    const checked = checkShape(result, answer);
    if (!checked.ok) throw refuse(checked.reason);
    return checked.value;
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
      const { response } = await get(currentPlanPath, what, abciQueryAnswer);
      if (response.code !== 0)
        throw new ChainUnavailableError(address, what, new Error(`the query failed (code ${response.code}): ${shownText(response.log)}`), via);
      let decoded;
      try {
        decoded = QueryCurrentPlanResponse.decode(Buffer.from(response.value ?? '', 'base64'));
      } catch (error) {
        throw new ChainAnswerRefusedError(address, what, `it is not a QueryCurrentPlanResponse: ${shownText((error as Error).message)}`, via);
      }
      const plan = planOf(decoded.plan);
      if (typeof plan === 'string') throw new ChainAnswerRefusedError(address, what, plan, via);
      return plan;
    },
    async latestHeight() {
      const what = 'the latest block height';
      const result = await get('/status', what, latestHeightAnswer, statusMaxBytes);
      return result.sync_info.latest_block_height;
    },
    close: () => transport.close(),
  };
}

/** /status is about 2 KiB on any node; read every second by the follow. */
export const statusMaxBytes = 64 * 1024;
