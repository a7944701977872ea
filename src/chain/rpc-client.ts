/**
 * The same two readings as the gRPC client (the current plan and the latest height), over the node's
 * CometBFT RPC, which every node serves. Asked through the one JSON-RPC client (json-rpc.ts) on the
 * node's own transport; every answer is bounded and checked against the schema of what the caller
 * reads (answers.ts) before any of it is used (issue #31).
 * Why, and the rest of its rules: docs/design/chain.md#chainrpc-clientts.
 */
import { QueryCurrentPlanResponse } from 'cosmjs-types/cosmos/upgrade/v1beta1/query.js';
import type * as v from 'valibot';

import { shownText } from '../shared/json.js';
import { abciQueryAnswer, latestHeightAnswer } from './answers.js';
import { ChainAnswerRefusedError, ChainUnavailableError } from './errors.js';
import { type ChainClient, planOf } from './grpc-client.js';
import { createJsonRpcClient, maxAnswerContainers, nodeTransport, type RpcCallOptions, RpcFailure, type RpcProblem } from './json-rpc.js';

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

const currentPlanQuery = { path: '"/cosmos.upgrade.v1beta1.Query/CurrentPlan"' };

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
  return {
    address,
    describe: () => via,
    async currentPlan() {
      const what = 'the scheduled upgrade plan';
      const { response } = await get('abci_query', what, abciQueryAnswer, { params: currentPlanQuery });
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
      const result = await get('status', what, latestHeightAnswer, { maxBytes: statusMaxBytes });
      return result.sync_info.latest_block_height;
    },
    close: () => rpc.close(),
  };
}

/** /status is about 2 KiB on any node; read every second by the follow. */
export const statusMaxBytes = 64 * 1024;
