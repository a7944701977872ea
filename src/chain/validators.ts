/**
 * The staking validator that signs with a consensus key (issue #45): the node's
 * priv_validator_key.json gives the key's address (40 hex digits, as CometBFT's validator address),
 * staking lists validators by operator. The address of an ed25519 key is the first 20 bytes of its
 * sha256; of a secp256k1 key, the ripemd160 of its sha256. The account that votes is the operator
 * address's bytes under the account prefix (`cosmosvaloper` → `cosmos`).
 */
import { createHash } from 'node:crypto';

import { bech32 } from '@scure/base';
import { PubKey as Ed25519PubKey } from 'cosmjs-types/cosmos/crypto/ed25519/keys.js';
import { PubKey as Secp256k1PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys.js';
import { QueryValidatorsRequest, QueryValidatorsResponse } from 'cosmjs-types/cosmos/staking/v1beta1/query.js';
import type { Any } from 'cosmjs-types/google/protobuf/any.js';

import { shownText } from '../shared/json.js';
import { maxValidators } from './answers.js';
import { ChainAnswerRefusedError } from './errors.js';
import type { ChainClient } from './grpc-client.js';
import { pages } from './pages.js';
import { decodeAnswer } from './query.js';

/** A validator of the staking module: texts as the chain has them (pass shownText before showing the moniker). */
export interface StakingValidator {
  /** Its operator address (`cosmosvaloper1…`). */
  operator: string;
  /** The account address of the operator, the voter of its governance votes (`cosmos1…`). */
  account: string;
  moniker: string;
}

const perPage = 100;

/** The validator whose consensus key has `address` (hex, any case), undefined when none has. */
export async function validatorByConsensusAddress(
  client: Pick<ChainClient, 'query' | 'address' | 'describe'>,
  address: string,
): Promise<StakingValidator | undefined> {
  if (!/^[0-9a-f]{40}$/i.test(address)) throw new TypeError(`a consensus address is 40 hex digits, not "${shownText(address, 80)}"`);
  const wanted = address.toUpperCase();
  const what = 'the validators';
  const list = pages(client, { what: 'validators', perPage, maxPages: maxValidators / perPage }, async (pagination) => {
    const request = QueryValidatorsRequest.encode({ status: '', pagination }).finish();
    const bytes = await client.query('/cosmos.staking.v1beta1.Query/Validators', request, what);
    const { validators: items, pagination: page } = decodeAnswer(QueryValidatorsResponse, bytes, client, what, 'QueryValidatorsResponse');
    return { items, pagination: page };
  });
  for await (const validators of list) {
    const found = validators.find((v) => consensusAddressOf(v.consensusPubkey) === wanted);
    if (found === undefined) continue;
    const account = accountOf(found.operatorAddress);
    if (account === undefined) {
      throw new ChainAnswerRefusedError(
        client.address,
        what,
        `the operator address "${shownText(found.operatorAddress, 100)}" is not a bech32 valoper address`,
        client.describe(),
      );
    }
    return { operator: found.operatorAddress, account, moniker: found.description?.moniker ?? '' };
  }
  return undefined;
}

/** The consensus address (upper-case hex) of a consensus public key; undefined for a key of another type or that does not decode. */
export function consensusAddressOf(key: Any | undefined): string | undefined {
  try {
    if (key?.typeUrl === '/cosmos.crypto.ed25519.PubKey') {
      return createHash('sha256').update(Ed25519PubKey.decode(key.value).key).digest().subarray(0, 20).toString('hex').toUpperCase();
    }
    if (key?.typeUrl === '/cosmos.crypto.secp256k1.PubKey') {
      const sha = createHash('sha256').update(Secp256k1PubKey.decode(key.value).key).digest();
      return createHash('ripemd160').update(sha).digest('hex').toUpperCase();
    }
  } catch {
    // A key that does not decode is no key this node signs with.
  }
  return undefined;
}

/** `cosmosvaloper1…` → `cosmos1…` (the same bytes); undefined when it is not a bech32 valoper address. */
export function accountOf(operator: string): string | undefined {
  try {
    const { prefix, words } = bech32.decode(operator as `${string}1${string}`, 1023);
    if (!prefix.endsWith('valoper') || prefix.length === 'valoper'.length) return undefined;
    return bech32.encode(prefix.slice(0, -'valoper'.length), words, 1023);
  } catch {
    return undefined;
  }
}
