/**
 * `cosmos.staking.v1beta1.Query` Validators and Validator (x/staking/keeper/grpc_query.go of SDK v0.50),
 * on protobuf bytes (gRPC, ABCI) and as grpc-gateway JSON under `/sim/staking/v1beta1/<Method>` (REST).
 * Every validator is bonded, unjailed, with simd's default commission (0.1, max 0.2, change 0.01).
 */
import { PubKey } from 'cosmjs-types/cosmos/crypto/ed25519/keys.js';
import * as q from 'cosmjs-types/cosmos/staking/v1beta1/query.js';
import { BondStatus, bondStatusToJSON, type Validator } from 'cosmjs-types/cosmos/staking/v1beta1/staking.js';

import type { ProtoHandler } from '../core/query.js';
import { legacyDec, legacyDecAtomics, timestampJson, timestampProto } from '../gov/encoding.js';
import { pageJson } from '../gov/gateway.js';
import { type PageRequest, pageRequestFromJson, type PageRequestJson, paginate } from '../gov/paginate.js';
import { pageProto } from '../gov/proto.js';
import type { KVReader } from '../store/kv.js';
import { valAddressFromBech32 } from '../util/bech32.js';
import { decodeRequest, GrpcCode, StatusError } from '../util/errors.js';
import { type StakingValidator, stakingValidators, type ValidatorIdentity } from './validators.js';

export const stakingQueryService = 'cosmos.staking.v1beta1.Query';
export const ed25519PubKeyType = '/cosmos.crypto.ed25519.PubKey';

export interface StakingSource {
  identities: ReadonlyMap<string, ValidatorIdentity>;
  /** The commission's update time: the chain's genesis time. */
  genesisTime: string;
}

const rates = { rate: '0.1', maxRate: '0.2', maxChangeRate: '0.01' };
const epoch = '1970-01-01T00:00:00Z';
const statuses = new Set(['BOND_STATUS_BONDED', 'BOND_STATUS_UNBONDED', 'BOND_STATUS_UNBONDING']);

function views(reader: () => KVReader, source: StakingSource) {
  const all = () => stakingValidators(reader(), source.identities);
  return {
    async validators(status: string, pagination: PageRequest | undefined) {
      if (status !== '' && !statuses.has(status)) throw new StatusError(GrpcCode.invalidArgument, `invalid validator status ${status}`);
      // The store's key: the length-prefixed operator address under ValidatorsKey.
      const entries = (await all()).map((v) => ({ key: Buffer.concat([Buffer.from([v.operatorBytes.length]), v.operatorBytes]), value: v }));
      try {
        const { results, page } = paginate(entries, pagination, () => status === '' || status === 'BOND_STATUS_BONDED');
        return { validators: results, pagination: page };
      } catch (error) {
        if (error instanceof StatusError) throw error;
        throw new StatusError(GrpcCode.internal, error instanceof Error ? error.message : String(error));
      }
    },
    async validator(address: string): Promise<StakingValidator> {
      if (address === '') throw new StatusError(GrpcCode.invalidArgument, 'validator address cannot be empty');
      let bytes: Buffer;
      try {
        bytes = valAddressFromBech32(address);
      } catch (error) {
        throw new StatusError(GrpcCode.unknown, (error as Error).message);
      }
      const found = (await all()).find((v) => v.operatorBytes.equals(bytes));
      if (found === undefined) throw new StatusError(GrpcCode.notFound, `validator ${address} not found`);
      return found;
    },
  };
}

function validatorProto(v: StakingValidator, source: StakingSource): Validator {
  const tokens = v.tokens.toString();
  const dec = (text: string) => legacyDecAtomics(text);
  return {
    operatorAddress: v.operatorAddress,
    consensusPubkey: { typeUrl: ed25519PubKeyType, value: PubKey.encode({ key: v.consensusPubKey }).finish() },
    jailed: false,
    status: BondStatus.BOND_STATUS_BONDED,
    tokens,
    delegatorShares: dec(tokens),
    description: { moniker: v.moniker, identity: '', website: '', securityContact: '', details: '' },
    unbondingHeight: 0n,
    unbondingTime: timestampProto(epoch),
    commission: {
      commissionRates: { rate: dec(rates.rate), maxRate: dec(rates.maxRate), maxChangeRate: dec(rates.maxChangeRate) },
      updateTime: timestampProto(source.genesisTime),
    },
    minSelfDelegation: '1',
    unbondingOnHoldRefCount: 0n,
    unbondingIds: [],
  };
}

/** The gateway's JSON of a Validator: proto field names, every field present, decimals as LegacyDec text. */
export function validatorJson(v: StakingValidator, source: StakingSource) {
  const tokens = v.tokens.toString();
  return {
    operator_address: v.operatorAddress,
    consensus_pubkey: { '@type': ed25519PubKeyType, key: v.consensusPubKey.toString('base64') },
    jailed: false,
    status: bondStatusToJSON(BondStatus.BOND_STATUS_BONDED),
    tokens,
    delegator_shares: legacyDec(tokens),
    description: { moniker: v.moniker, identity: '', website: '', security_contact: '', details: '' },
    unbonding_height: '0',
    unbonding_time: epoch,
    commission: {
      commission_rates: { rate: legacyDec(rates.rate), max_rate: legacyDec(rates.maxRate), max_change_rate: legacyDec(rates.maxChangeRate) },
      update_time: timestampJson(source.genesisTime),
    },
    min_self_delegation: '1',
    unbonding_on_hold_ref_count: '0',
    unbonding_ids: [],
  };
}

export function stakingQueries(reader: () => KVReader, source: StakingSource): Record<string, Record<string, ProtoHandler>> {
  const view = views(reader, source);
  return {
    [stakingQueryService]: {
      async Validators(bytes) {
        const request = decodeRequest(q.QueryValidatorsRequest, bytes);
        const { validators, pagination } = await view.validators(request.status, request.pagination);
        const answer = { validators: validators.map((v) => validatorProto(v, source)), pagination: pageProto(pagination) };
        return q.QueryValidatorsResponse.encode(answer).finish();
      },
      async Validator(bytes) {
        const { validatorAddr } = decodeRequest(q.QueryValidatorRequest, bytes);
        return q.QueryValidatorResponse.encode({ validator: validatorProto(await view.validator(validatorAddr), source) }).finish();
      },
    },
  };
}

type JsonHandler = (request: Record<string, unknown>) => Promise<unknown>;

/** The JSON query paths REST uses: `/sim/staking/v1beta1/Validators` (status, pagination) and `…/Validator` (validator_addr). */
export function stakingGatewayQueries(reader: () => KVReader, source: StakingSource): Record<string, JsonHandler> {
  const view = views(reader, source);
  return {
    '/sim/staking/v1beta1/Validators': async (request) => {
      const pagination = pageRequestFromJson(request.pagination as PageRequestJson | undefined);
      const { validators, pagination: out } = await view.validators(typeof request.status === 'string' ? request.status : '', pagination);
      return { validators: validators.map((v) => validatorJson(v, source)), pagination: pageJson(out) };
    },
    '/sim/staking/v1beta1/Validator': async (request) => ({
      validator: validatorJson(await view.validator(typeof request.validator_addr === 'string' ? request.validator_addr : ''), source),
    }),
  };
}
