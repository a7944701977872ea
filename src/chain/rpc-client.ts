/**
 * The same readings as the gRPC client (a query of the node's query router through `abci_query`, the
 * current plan made of it, and the latest height), over the node's CometBFT RPC, which every node serves. Asked through the one JSON-RPC client (json-rpc.ts) on the
 * node's own transport; every answer is bounded and checked against the schema of what the caller
 * reads (answers.ts) before any of it is used (issue #31).
 * Why, and the rest of its rules: docs/design/chain.md#chainrpc-clientts.
 */
import type * as v from 'valibot';

import { shownText } from '../shared/json.js';
import { abciQueryAnswer, latestHeightAnswer } from './answers.js';
import { ChainAnswerRefusedError, ChainQueryError, ChainUnavailableError } from './errors.js';
import { type ChainClient, readCurrentPlan } from './grpc-client.js';
import { createJsonRpcClient, maxAnswerContainers, nodeTransport, type RpcCallOptions, RpcFailure, type RpcProblem } from './json-rpc.js';
import { maxQueryBytes } from './query.js';

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
const maxAnswerBytes = 4 * 1024 * 1024;

/** No answer chainvisor reads is nested deeper than about 8; JSON.parse recurses, the check does not. */
const maxAnswerDepth = 32;

/** One node's RPC: its answers' `result`, or its failures as ChainUnavailableError. */
export interface NodeRpc {
  address: string;
  via: string;
  /**
   * One GET: the JSON-RPC `result` checked against `answer`, or a ChainUnavailableError saying why not
   * (`what` names the reading); a ChainAnswerRefusedError when the node answered something else.
   */
  get<S extends v.GenericSchema>(route: string, what: string, answer: S, options?: Omit<RpcCallOptions, 'signal'>): Promise<v.InferOutput<S>>;
  close(): void;
}

export function createNodeRpc(options: RpcClientOptions): NodeRpc {
  const { address } = options;
  const via = `the node's RPC at ${address}`;
  const transport = nodeTransport({ address, timeoutMs: options.timeoutMs ?? 5000 });
  const rpc = createJsonRpcClient(transport, { maxBytes: maxAnswerBytes, maxDepth: maxAnswerDepth, maxContainers: maxAnswerContainers });
  return {
    address,
    via,
    async get(route, what, answer, callOptions) {
      try {
        return await rpc.call(route, answer, callOptions);
      } catch (error) {
        throw error instanceof RpcFailure ? nodeError(error.problem, address, what, via) : error;
      }
    },
    close: () => rpc.close(),
  };
}

/** A failed call in the words of the node's readers: away (ChainUnavailableError), or refused. */
function nodeError(problem: RpcProblem, address: string, what: string, via: string): ChainUnavailableError {
  const fail = (cause: Error) => new ChainUnavailableError(address, what, cause, via);
  const refuse = (reason: string) => new ChainAnswerRefusedError(address, what, shownText(reason, 300), via);
  switch (problem.kind) {
    case 'unreachable':
      return fail(problem.cause);
    case 'error':
      return fail(new Error(`the node answered an error: ${problem.said === undefined ? 'of no known shape' : shownText(problem.said)}`));
    case 'http':
      return fail(new Error(`the node answered HTTP ${problem.statusCode}`));
    case 'too-large':
      return refuse(`the answer is larger than ${problem.maxBytes} bytes`);
    case 'not-json':
    case 'shape':
      return refuse(problem.reason);
    case 'not-rpc':
      return refuse(`it is not a JSON-RPC answer (${problem.reason})`);
    case 'no-result':
      return refuse('the answer has no result');
  }
}

export function createRpcClient(options: RpcClientOptions): ChainClient {
  const rpc = createNodeRpc(options);
  const { address, via, get } = rpc;
  const self: ChainClient = {
    address,
    describe: () => via,
    async query(path, request, what, maxBytes = maxQueryBytes) {
      // The path JSON-quoted and the request as 0x-hex, as CometBFT's URI form takes them; base64 in
      // the JSON answer makes it a third larger than the bytes it holds.
      const params = { path: JSON.stringify(path), ...(request.length === 0 ? {} : { data: `0x${Buffer.from(request).toString('hex')}` }) };
      const jsonBytes = Math.ceil(maxBytes / 3) * 4 + abciQueryOverhead;
      const { response } = await get('abci_query', what, abciQueryAnswer, { params, maxBytes: jsonBytes });
      if (response.code !== 0) throw queryError(response, { address, what, path, via });
      const bytes = Buffer.from(response.value ?? '', 'base64');
      if (bytes.length > maxBytes) throw new ChainAnswerRefusedError(address, what, `the answer is larger than ${maxBytes} bytes`, via);
      return bytes;
    },
    currentPlan: () => readCurrentPlan(self),
    async latestHeight() {
      const what = 'the latest block height';
      const result = await get('status', what, latestHeightAnswer, { maxBytes: statusMaxBytes });
      return result.sync_info.latest_block_height;
    },
    close: () => rpc.close(),
  };
  return self;
}

/** What an abci_query answer holds besides its value: the envelope, the code, the log, the height. */
const abciQueryOverhead = 64 * 1024;

/**
 * A query the node refused, in its words: the SDK's `unknown request` (6) for a path it does not route
 * ("unknown query path"; "no route" or the gRPC words of older versions), `key not found` (22) or
 * `not found` (38), or any other code.
 */
function queryError(response: { code: number; log: string }, at: { address: string; what: string; path: string; via: string }): ChainQueryError {
  const { address, what, path, via } = at;
  const { code, log } = response;
  const reason = `the query failed (code ${code}): ${shownText(log)}`;
  const kind =
    code === 6 && /unknown query path|no route|unknown service|unknown method|Unimplemented/i.test(log)
      ? 'unknown'
      : code === 22 || code === 38
        ? 'not-found'
        : 'failed';
  return new ChainQueryError(address, what, kind, path, log, reason, via);
}

/** /status is about 2 KiB on any node; read every second by the follow. */
export const statusMaxBytes = 64 * 1024;
