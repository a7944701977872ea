/**
 * A small gRPC client of the node's query router: one unary call of any query method on raw protobuf
 * bytes (`query`), and the two readings every Cosmos-SDK node serves, made of it:
 *   cosmos.upgrade.v1beta1.Query/CurrentPlan        → the plan scheduled by governance, or none
 *   cosmos.base.tendermint.v1beta1.Service/GetLatestBlock → the latest committed height
 * Messages are cosmjs-types' generated codecs; the channel is plaintext, as a node's gRPC port is.
 * Every call has a deadline, so a node that accepts the connection and never answers cannot hang us,
 * and every answer a size bound.
 */
import type { Client, ServiceError } from '@grpc/grpc-js';
import { GetLatestBlockRequest, GetLatestBlockResponse } from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query.js';
import { QueryCurrentPlanRequest, QueryCurrentPlanResponse } from 'cosmjs-types/cosmos/upgrade/v1beta1/query.js';
import type { Plan } from 'cosmjs-types/cosmos/upgrade/v1beta1/upgrade.js';

import { shownText } from '../shared/json.js';
import { isLoopback } from '../shared/net/index.js';
import { ChainAnswerRefusedError, ChainQueryError, ChainUnavailableError } from './errors.js';
import { knockOn } from './knock.js';
import { decodeAnswer, maxQueryBytes } from './query.js';

/** The plan as chainvisor uses it: the same shape as upgrade-info.json's. */
export interface ScheduledPlan {
  name: string;
  height: number;
  info: string;
}

export interface GrpcClientOptions {
  /** `host:port`, as DAEMON_GRPC_ADDRESS is written (a `grpc://` or `http://` prefix is tolerated). */
  address: string;
  /** Deadline of one call; default 5 s. */
  timeoutMs?: number;
}

export interface ChainClient {
  readonly address: string;
  /** What is asked, for messages: "the node's gRPC at localhost:9090". */
  describe(): string;
  /**
   * One query of the node's query router: `path` a gRPC method (`/cosmos.gov.v1.Query/Proposals`),
   * `request` its protobuf bytes; the answer's protobuf bytes, at most `maxBytes` (default and most 4
   * MiB). `what` names the reading in errors. Throws ChainQueryError when the node answered the query
   * with an error (`kind` `unknown`: it serves no such query), ChainAnswerRefusedError for an answer
   * too large, else ChainUnavailableError.
   */
  query(path: string, request: Uint8Array, what: string, maxBytes?: number): Promise<Uint8Array>;
  /** The scheduled plan, or `null` when none is scheduled. Throws ChainUnavailableError. */
  currentPlan(): Promise<ScheduledPlan | null>;
  /** The latest committed block height. Throws ChainUnavailableError. */
  latestHeight(): Promise<number>;
  close(): void;
}

export function createGrpcClient(options: GrpcClientOptions): ChainClient {
  const address = options.address.replace(/^(grpc|http|tcp):\/\//, '');
  const timeoutMs = options.timeoutMs ?? 5000;
  const via = `the node's gRPC at ${address}`;
  // Opened at the first call, and closed again when the node cannot be reached: an open channel to a node
  // with no gRPC reconnects in the background every 2 s for ever, which an idle `run` paid for (issue:
  // quiet at rest). The callers' own schedule decides when to try again.
  let client: Client | undefined;
  const target = hostPort(address);
  // Before the first call and after a refusal, a call first knocks on the port with a bare TCP connect
  // (a tenth of the CPU of a new channel's attempt): a node that runs with no gRPC at all is asked at
  // every plan poll for ever, and a node just started opens its gRPC seconds after its process. Only
  // where the channel connects directly as well: a node on loopback, or no proxy variable of grpc-js set.
  const loopback = target !== undefined && isLoopback(target.host);
  const knocks = target !== undefined && (loopback || !grpcProxySet());
  let knock = knocks;
  // grpc-js itself is loaded when something listens there: 30-40 ms of CPU and a few MiB that a node
  // with gRPC off, or not listening yet, never needs.
  let grpc: typeof import('@grpc/grpc-js') | undefined;
  const open = async (): Promise<{ used: Client; grpc: typeof import('@grpc/grpc-js') }> => {
    grpc ??= await import('@grpc/grpc-js');
    client ??= new grpc.Client(address, grpc.credentials.createInsecure(), {
      // Fail fast while the node is down instead of queueing calls until it comes back.
      'grpc.enable_retries': 0,
      'grpc.initial_reconnect_backoff_ms': 200,
      'grpc.max_reconnect_backoff_ms': 2000,
      // An answer larger than any query's bound is refused by grpc-js before it is buffered whole.
      'grpc.max_receive_message_length': maxQueryBytes,
      // A node on localhost or a loopback address is never reached through a proxy, as with Go's gRPC
      // (cosmovisor): grpc-js would send it through the http_proxy, https_proxy or grpc_proxy that an
      // operator sets for downloads, and the proxy cannot reach this host's loopback.
      ...(loopback ? { 'grpc.enable_http_proxy': 0 } : {}),
    });
    return { used: client, grpc };
  };

  async function query(path: string, request: Uint8Array, what: string, maxBytes = maxQueryBytes): Promise<Uint8Array> {
    if (knock && client === undefined && target !== undefined) {
      const refusal = await knockOn(target, timeoutMs);
      if (refusal !== undefined) throw new ChainUnavailableError(address, what, refusal);
      knock = false;
    }
    const { used, grpc } = await open();
    const { status } = grpc;
    const bytes = await new Promise<Buffer>((resolve, reject) => {
      used.makeUnaryRequest<Uint8Array, Buffer>(
        path,
        (message) => Buffer.from(message),
        (answer) => answer,
        request,
        { deadline: Date.now() + timeoutMs },
        (error: ServiceError | null, response?: Buffer) => {
          // A node that refuses, or one that never answers (a black-holed address): the channel would redial.
          if ((error?.code === status.UNAVAILABLE || error?.code === status.DEADLINE_EXCEEDED) && client === used) {
            used.close();
            client = undefined;
            knock = knocks;
          }
          if (error === null && response !== undefined) return resolve(response);
          if (error === null) return reject(new ChainUnavailableError(address, what, new Error('empty answer')));
          reject(callError(error, status, { address, what, path, via }));
        },
      );
    });
    if (bytes.length > maxBytes) throw new ChainAnswerRefusedError(address, what, `the answer is larger than ${maxBytes} bytes`, via);
    return bytes;
  }

  const self: ChainClient = {
    address,
    describe: () => via,
    query,
    currentPlan: () => readCurrentPlan(self),
    async latestHeight() {
      const what = 'the latest block height';
      const request = GetLatestBlockRequest.encode({}).finish();
      const bytes = await query('/cosmos.base.tendermint.v1beta1.Service/GetLatestBlock', request, what);
      const response = decodeAnswer(GetLatestBlockResponse, bytes, self, what, 'GetLatestBlockResponse');
      const height = response.sdkBlock?.header?.height ?? response.block?.header?.height;
      if (height === undefined) throw new ChainUnavailableError(address, what, new Error('the answer has no block header'));
      const checked = heightOf(height);
      if (typeof checked === 'string') throw new ChainAnswerRefusedError(address, what, checked);
      return checked;
    },
    close() {
      client?.close();
      client = undefined;
    },
  };
  return self;
}

/**
 * A failed call in the words of the chain's readers: the node's own error for the query (unknown, not
 * found, failed), an answer past the size bound, or the node away.
 */
function callError(
  error: ServiceError,
  status: typeof import('@grpc/grpc-js').status,
  at: { address: string; what: string; path: string; via: string },
): ChainUnavailableError {
  const { address, what, path, via } = at;
  const said = error.details ?? '';
  const reason = `${status[error.code] ?? error.code}: ${shownText(said)}`;
  switch (error.code) {
    case status.UNAVAILABLE:
    case status.DEADLINE_EXCEEDED:
    case status.CANCELLED:
      return new ChainUnavailableError(address, what, new Error(shownText(error.message), { cause: error }), via);
    case status.RESOURCE_EXHAUSTED:
      // grpc-js's own refusal of a message past grpc.max_receive_message_length.
      if (/larger than max/i.test(said)) return new ChainAnswerRefusedError(address, what, `the answer is larger than ${maxQueryBytes} bytes`, via);
      return new ChainQueryError(address, what, 'failed', path, said, `the query failed (${reason})`, via);
    case status.UNIMPLEMENTED:
      return new ChainQueryError(address, what, 'unknown', path, said, `the node serves no ${shownText(path, 100)} (${reason})`, via);
    case status.NOT_FOUND:
      return new ChainQueryError(address, what, 'not-found', path, said, `not found (${reason})`, via);
    default:
      return new ChainQueryError(address, what, 'failed', path, said, `the query failed (${reason})`, via);
  }
}

const currentPlanPath = '/cosmos.upgrade.v1beta1.Query/CurrentPlan';

/** The scheduled plan, or null, read by `client`'s query (gRPC or abci_query): one way to read it. */
export async function readCurrentPlan(client: Pick<ChainClient, 'query' | 'address' | 'describe'>): Promise<ScheduledPlan | null> {
  const what = 'the scheduled upgrade plan';
  const bytes = await client.query(currentPlanPath, QueryCurrentPlanRequest.encode({}).finish(), what);
  const response = decodeAnswer(QueryCurrentPlanResponse, bytes, client, what, 'QueryCurrentPlanResponse');
  const plan = planOf(response.plan);
  if (typeof plan === 'string') throw new ChainAnswerRefusedError(client.address, what, plan, client.describe());
  return plan;
}

/** Whether grpc-js may send a channel through a proxy: it reads these lower-case variables only. */
function grpcProxySet(): boolean {
  return ['grpc_proxy', 'https_proxy', 'http_proxy'].some((name) => (process.env[name] ?? '') !== '');
}

/** `host:port` or `[v6]:port` as net.connect takes it; undefined for anything else (no knock then). */
function hostPort(address: string): { host: string; port: number } | undefined {
  const match = /^\[?([^[\]]*?)\]?:(\d{1,5})$/.exec(address);
  if (match === null) return undefined;
  const port = Number(match[2]);
  return port > 0 && port < 65536 ? { host: match[1] || 'localhost', port } : undefined;
}

/**
 * The plan of a QueryCurrentPlanResponse (gRPC or abci_query), or null when none is scheduled, or why
 * it cannot be a plan: the SDK refuses a plan at height 0 or below, and a height past 2^53 is no
 * chain's (it would be rounded, and an upgrade at the wrong height is worse than none).
 */
export function planOf(plan: Plan | undefined): ScheduledPlan | null | string {
  if (plan === undefined || plan.name === '') return null;
  const height = heightOf(plan.height);
  if (typeof height === 'string') return `the plan "${shownText(plan.name, 80)}" has ${height}`;
  if (height === 0) return `the plan "${shownText(plan.name, 80)}" has height 0`;
  return { name: plan.name, height, info: plan.info };
}

/** A protobuf int64 height as a number, or why it is not one (negative, or past 2^53). */
export function heightOf(height: bigint): number | string {
  if (height < 0n) return `a negative height (${height})`;
  if (height > BigInt(Number.MAX_SAFE_INTEGER)) return `a height past 2^53 (${height})`;
  return Number(height);
}
