/**
 * An ABCI query as baseapp's Query (SDK v0.50) answers it: a path the query service serves (a gRPC
 * method, or one of the node's `/sim/…` paths) runs at the height asked; otherwise the path's first
 * segment routes it — `app/version`, `store/<store>/key|subspace` (the raw store entries, no proofs),
 * `p2p/filter/addr|id/<x>` (no peer filter: accepted) — and anything else is `unknown query path`.
 * The answer is ResponseQuery's fields; errors are the SDK's (code, codespace, log).
 * `cosmos.base.tendermint.v1beta1.Service/ABCIQuery` (the SDK's cmtservice) answers through it, for the
 * paths it lets through.
 */
import { Pairs } from 'cosmjs-types/cosmos/base/kv/v1beta1/kv.js';
import { ABCIQueryRequest, ABCIQueryResponse } from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query.js';

import type { ProtoHandler } from '../core/query.js';
import type { KVReader } from '../store/kv.js';
import { mountedStores, storePrefix } from '../store/stores.js';
import { ChainError, GrpcCode, StatusError } from '../util/errors.js';
import type { HeightRange } from './query-height.js';

/**
 * What an ABCI query needs of the node's queries; the query service (query-service.ts) provides it.
 * Declared here so that this file does not depend on the service that serves it as a method.
 */
export interface AbciQuerySource {
  /** True when `path` is a query the node's query service answers. */
  knows(path: string): boolean;
  /** Answers a served path at `height`; throws ChainError. */
  query(path: string, data: Uint8Array, height?: number): Promise<Uint8Array>;
  /** The height a query asking for `requested` (0 = latest) is answered at; throws the SDK's height errors. */
  heightFor(requested: number): number;
  /** The last committed height and the first one still kept. */
  heights(): HeightRange;
  /** The module stores as committed at `height`; undefined for a height not kept. */
  stateAt(height: number): KVReader | undefined;
}

export interface AbciQueryRequest {
  path: string;
  data: Uint8Array;
  /** 0 = the latest height. */
  height: number;
  prove: boolean;
}

export interface AbciQueryResponse {
  code: number;
  log: string;
  info: string;
  index: bigint;
  /** undefined: nil in Go (null in the RPC's JSON). */
  key: Uint8Array | undefined;
  value: Uint8Array | undefined;
  /** The height answered at (0 when the query was refused before a height was chosen). */
  height: number;
  codespace: string;
}

const empty = (): AbciQueryResponse => ({ code: 0, log: '', info: '', index: 0n, key: undefined, value: undefined, height: 0, codespace: '' });

/** errorsmod.Wrap(err, context) of a registered error, as QueryResult puts it (height 0). */
function failure(code: number, description: string, context: string, codespace = 'sdk'): AbciQueryResponse {
  return { ...empty(), code, codespace, log: `${context}: ${description}` };
}

const unknownRequest = (context: string) => failure(6, 'unknown request', context);
/** The store module's own errors (cosmossdk.io/store, codespace `store`): ErrTxDecode 3, ErrUnknownRequest 4. */
const storeTxDecode = (context: string) => failure(3, 'tx parse error', context, 'store');
const storeUnknownRequest = (context: string) => failure(4, 'unknown request', context, 'store');

/** baseapp's SplitABCIQueryPath: split on `/`, without the empty segment of a leading one. */
export function splitAbciQueryPath(path: string): string[] {
  const parts = path.split('/');
  return parts[0] === '' ? parts.slice(1) : parts;
}

/** A path the query service serves: at the height asked, or the SDK's error for that height or query. */
async function served(queries: AbciQuerySource, request: AbciQueryRequest): Promise<AbciQueryResponse> {
  const response = empty();
  try {
    // A refused height answers height 0; a failing query, the height it ran at.
    const height = queries.heightFor(request.height);
    response.height = height;
    response.value = await queries.query(request.path, request.data, height);
  } catch (error) {
    if (!(error instanceof ChainError)) throw error;
    Object.assign(response, { code: error.abciCode, codespace: error.codespace, log: error.message });
  }
  return response;
}

/** rootmulti's Query then the IAVL store's: `/<store>/key` (data = the key) or `/<store>/subspace` (data = a prefix). */
async function storeQuery(queries: AbciQuerySource, segments: string[], request: AbciQueryRequest, height: number): Promise<AbciQueryResponse> {
  if (request.prove && height <= 1) return failure(18, 'invalid request', 'cannot query with proof when height <= 1; please provide a valid height');
  const [name = '', ...rest] = segments;
  const subpath = rest.length === 0 ? '' : `/${rest.join('/')}`;
  const latest = queries.stateAt(queries.heights().latest);
  if (latest === undefined || !(await mountedStores(latest)).some((store) => store.name === name)) {
    return storeUnknownRequest(`no such store: ${name}`);
  }
  if (request.data.length === 0) return storeTxDecode('query cannot be zero length');
  if (subpath !== '/key' && subpath !== '/subspace') return storeUnknownRequest(`unexpected query path: ${subpath}`);
  const response = { ...empty(), key: request.data, height };
  const state = queries.stateAt(height);
  if (subpath === '/key') {
    if (state === undefined) return { ...response, log: 'version does not exist' };
    const value = await state.get(Buffer.concat([storePrefix(name), request.data]));
    return { ...response, value };
  }
  // The IAVL store iterates its latest state for a subspace, whatever the height asked.
  const prefix = storePrefix(name);
  const pairs = (await latest.range(Buffer.concat([prefix, request.data]))).map(([key, value]) => ({ key: key.subarray(prefix.length), value }));
  return { ...response, value: Pairs.encode({ pairs }).finish() };
}

export async function abciQuery(queries: AbciQuerySource, request: AbciQueryRequest, appVersion: string): Promise<AbciQueryResponse> {
  if (request.path === '/cosmos.tx.v1beta1.Service/BroadcastTx') return failure(18, 'invalid request', "can't route a broadcast tx message");
  if (queries.knows(request.path)) return served(queries, request);
  const path = splitAbciQueryPath(request.path);
  if (path.length === 0) return unknownRequest('no query path provided');
  // baseapp injects the latest height when none was asked, without checking one that was.
  const height = request.height === 0 ? queries.heights().latest : request.height;
  switch (path[0]) {
    case 'app':
      if (path.length < 2) return unknownRequest("expected second parameter to be either 'simulate' or 'version', neither was present");
      if (path[1] === 'version') return { ...empty(), codespace: 'sdk', height, value: Buffer.from(appVersion) };
      return unknownRequest(`unknown query: [${path.join(' ')}]`);
    case 'store':
      return storeQuery(queries, path.slice(1), request, height);
    case 'p2p':
      if (path.length < 4) return unknownRequest('path should be p2p filter <addr|id> <parameter>');
      if (path[1] !== 'filter') return unknownRequest("expected second parameter to be 'filter'");
      return empty(); // no peer filter: every peer is accepted
    default:
      return unknownRequest('unknown query path');
  }
}

/** The first path segments cmtservice's ABCIQuery lets through (baseapp's QueryPath* constants). */
const grpcAllowed = new Set(['app', 'store', 'p2p', 'custom']);

/**
 * cmtservice's ABCIQuery: an empty path is refused, and so is any path not under app/, store/, p2p/
 * or custom/ — a gRPC method's path included — both with InvalidArgument; the rest is answered as
 * over `abci_query`.
 */
export function abciQueryMethod(queries: () => AbciQuerySource, appVersion: string): ProtoHandler {
  return async (bytes) => {
    const { data, path, height, prove } = ABCIQueryRequest.decode(bytes);
    if (path === '') throw new StatusError(GrpcCode.invalidArgument, 'empty query path');
    const first = splitAbciQueryPath(path)[0];
    if (first !== undefined && !grpcAllowed.has(first)) throw new StatusError(GrpcCode.invalidArgument, `unsupported ABCI query path: ${path}`);
    const answer = await abciQuery(queries(), { path, data, height: Number(height), prove }, appVersion);
    const { key = new Uint8Array(), value = new Uint8Array() } = answer;
    return ABCIQueryResponse.encode({ ...answer, key, value, height: BigInt(answer.height), proofOps: undefined }).finish();
  };
}
