/**
 * `GetLatestValidatorSet` and `GetValidatorSetByHeight` of `cosmos.base.tendermint.v1beta1.Service`,
 * as the SDK's cmtservice (v0.50) answers them from CometBFT's `validators`: the same validator as the
 * RPC's (consensus address as `cosmosvalcons1…`, the ed25519 key in an Any of
 * `/cosmos.crypto.ed25519.PubKey`), the SDK's pagination turned into CometBFT's page and per_page
 * (ParsePagination: offset/limit + 1; no limit is 100), and their errors.
 */
import type { PageRequest } from 'cosmjs-types/cosmos/base/query/v1beta1/pagination.js';
import {
  GetLatestValidatorSetRequest,
  GetLatestValidatorSetResponse,
  GetValidatorSetByHeightRequest,
  GetValidatorSetByHeightResponse,
} from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query.js';
import { PubKey } from 'cosmjs-types/cosmos/crypto/ed25519/keys.js';

import type { ValidatorSet } from '../chain/validator-set.js';
import type { ProtoHandler } from '../core/query.js';
import { addressPrefix, bech32Encode } from '../util/bech32.js';
import { decodeRequest, GrpcCode, StatusError } from '../util/errors.js';

const int64Max = 2n ** 63n - 1n;
/** What a uint64 becomes as a Go int (negative past int64's range). */
const goInt = (value: bigint) => (value > int64Max ? value - 2n ** 64n : value);

/** The SDK's query.ParsePagination: CometBFT's page number and per_page. */
function parsePagination(request: PageRequest | undefined): { page: bigint; limit: bigint } {
  const offset = goInt(request?.offset ?? 0n);
  let limit = request === undefined ? 100n : goInt(request.limit);
  if (offset < 0n) throw new StatusError(GrpcCode.invalidArgument, 'offset must greater than 0');
  if (limit < 0n) throw new StatusError(GrpcCode.invalidArgument, 'limit must greater than 0');
  if (limit === 0n) limit = 100n;
  return { page: offset / limit + 1n, limit };
}

/** CometBFT's errors reach the client as plain errors: gRPC Unknown. */
const cometError = (message: string) => new StatusError(GrpcCode.unknown, message);

export interface ValidatorSetSource {
  /** This node's validator and the simulated peers. */
  set: ValidatorSet;
  /** The last committed height. */
  latest(): number;
}

/** CometBFT's `validators` at `height` (undefined: the next block's set), then the SDK's response. */
function validatorSet(source: ValidatorSetSource, height: bigint | undefined, pagination: PageRequest | undefined) {
  const { page, limit } = parsePagination(pagination);
  const latest = BigInt(source.latest() + 1); // the latest set known is the next block's
  if (height !== undefined) {
    if (height <= 0n) throw cometError(`height must be greater than 0, but got ${height}`);
    if (height > latest) throw cometError(`height ${height} must be less than or equal to the current blockchain height ${latest}`);
  }
  const all = source.set.validators.map((v) => ({
    address: bech32Encode(`${addressPrefix}valcons`, Buffer.from(v.address, 'hex')),
    pubKey: { typeUrl: '/cosmos.crypto.ed25519.PubKey', value: PubKey.encode({ key: v.pubKey }).finish() },
    votingPower: v.power,
    proposerPriority: 0n,
  }));
  const perPage = limit > 100n ? 100n : limit;
  const pages = BigInt(Math.max(1, Math.floor((all.length - 1) / Number(perPage)) + 1));
  if (page <= 0n || page > pages) throw cometError(`page should be within [1, ${pages}] range, given ${page}`);
  const skip = Number((page - 1n) * perPage);
  return {
    blockHeight: height ?? latest,
    validators: all.slice(skip, skip + Number(perPage)),
    pagination: { nextKey: new Uint8Array(), total: BigInt(all.length) },
  };
}

export function validatorSetQueries(source: ValidatorSetSource): Record<string, ProtoHandler> {
  return {
    async GetLatestValidatorSet(bytes) {
      const { pagination } = decodeRequest(GetLatestValidatorSetRequest, bytes);
      return GetLatestValidatorSetResponse.encode(validatorSet(source, undefined, pagination)).finish();
    },
    async GetValidatorSetByHeight(bytes) {
      const { height, pagination } = decodeRequest(GetValidatorSetByHeightRequest, bytes);
      const answer = () => validatorSet(source, height, pagination);
      parsePagination(pagination);
      if (height > BigInt(source.latest())) throw new StatusError(GrpcCode.invalidArgument, 'requested block height is bigger then the chain length');
      return GetValidatorSetByHeightResponse.encode(answer()).finish();
    },
  };
}
