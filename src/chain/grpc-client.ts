/**
 * A small gRPC client for two queries every Cosmos-SDK node serves:
 *   cosmos.upgrade.v1beta1.Query/CurrentPlan        → the plan scheduled by governance, or none
 *   cosmos.base.tendermint.v1beta1.Service/GetLatestBlock → the latest committed height
 * Messages are cosmjs-types' generated codecs; the channel is plaintext, as a node's gRPC port is.
 * Every call has a deadline, so a node that accepts the connection and never answers cannot hang us.
 */
import type { Client, ServiceError } from '@grpc/grpc-js';
import { GetLatestBlockRequest, GetLatestBlockResponse } from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query.js';
import { QueryCurrentPlanRequest, QueryCurrentPlanResponse } from 'cosmjs-types/cosmos/upgrade/v1beta1/query.js';
import type { Plan } from 'cosmjs-types/cosmos/upgrade/v1beta1/upgrade.js';

import { shownText } from '../shared/json.js';
import { isLoopback } from '../shared/net/index.js';
import { ChainAnswerRefusedError, ChainUnavailableError } from './errors.js';
import { knockOn } from './knock.js';

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
  /** The scheduled plan, or `null` when none is scheduled. Throws ChainUnavailableError. */
  currentPlan(): Promise<ScheduledPlan | null>;
  /** The latest committed block height. Throws ChainUnavailableError. */
  latestHeight(): Promise<number>;
  close(): void;
}

type Codec<T> = { encode(message: T): { finish(): Uint8Array }; decode(bytes: Uint8Array): T; fromPartial(object: object): T };

export function createGrpcClient(options: GrpcClientOptions): ChainClient {
  const address = options.address.replace(/^(grpc|http|tcp):\/\//, '');
  const timeoutMs = options.timeoutMs ?? 5000;
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
      // A node on localhost or a loopback address is never reached through a proxy, as with Go's gRPC
      // (cosmovisor): grpc-js would send it through the http_proxy, https_proxy or grpc_proxy that an
      // operator sets for downloads, and the proxy cannot reach this host's loopback.
      ...(loopback ? { 'grpc.enable_http_proxy': 0 } : {}),
    });
    return { used: client, grpc };
  };

  /** One query with an empty request (both of ours take none). */
  async function call<Req, Res>(method: string, requestCodec: Codec<Req>, responseCodec: Codec<Res>, what: string): Promise<Res> {
    const request = requestCodec.fromPartial({});
    if (knock && client === undefined && target !== undefined) {
      const refusal = await knockOn(target, timeoutMs);
      if (refusal !== undefined) throw new ChainUnavailableError(address, what, refusal);
      knock = false;
    }
    const { used, grpc } = await open();
    const { status } = grpc;
    return new Promise((resolve, reject) => {
      used.makeUnaryRequest<Req, Res>(
        method,
        (message) => Buffer.from(requestCodec.encode(message).finish()),
        (bytes) => responseCodec.decode(bytes),
        request,
        { deadline: Date.now() + timeoutMs },
        (error: ServiceError | null, response?: Res) => {
          // A node that refuses, or one that never answers (a black-holed address): the channel would redial.
          if ((error?.code === status.UNAVAILABLE || error?.code === status.DEADLINE_EXCEEDED) && client === used) {
            used.close();
            client = undefined;
            knock = knocks;
          }
          if (error !== null || response === undefined) reject(new ChainUnavailableError(address, what, error ?? new Error('empty answer')));
          else resolve(response);
        },
      );
    });
  }

  return {
    address,
    describe: () => `the node's gRPC at ${address}`,
    async currentPlan() {
      const response = await call('/cosmos.upgrade.v1beta1.Query/CurrentPlan', QueryCurrentPlanRequest, QueryCurrentPlanResponse, 'the scheduled upgrade plan');
      const plan = planOf(response.plan);
      if (typeof plan === 'string') throw new ChainAnswerRefusedError(address, 'the scheduled upgrade plan', plan);
      return plan;
    },
    async latestHeight() {
      const what = 'the latest block height';
      const response = await call('/cosmos.base.tendermint.v1beta1.Service/GetLatestBlock', GetLatestBlockRequest, GetLatestBlockResponse, what);
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
