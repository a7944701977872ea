/**
 * The staking validators as x/staking's queries show them: every validator of the state (power by
 * account) with its operator address (`cosmosvaloper1…`, the account's bytes), its consensus key
 * (genesis.json records each validator's; the home's own is its priv_validator_key.json's), bonded,
 * tokens = power × 10⁶ (the SDK's DefaultPowerReduction), in the store's order (operator address bytes).
 */
import { consensusKey } from '../chain/consensus-key.js';
import type { Genesis } from '../chain/genesis.js';
import { validators } from '../core/accounts.js';
import type { KVReader } from '../store/kv.js';
import { bech32Decode, bech32Encode, validatorOperatorPrefix } from '../util/bech32.js';

export interface StakingValidator {
  operatorAddress: string;
  /** The operator's bytes: the key of the validator in the staking store. */
  operatorBytes: Buffer;
  /** The ed25519 consensus public key (32 bytes). */
  consensusPubKey: Buffer;
  tokens: bigint;
  moniker: string;
}

export const powerReduction = 1_000_000n;

export interface ValidatorIdentity {
  pubKey: Buffer;
  name: string;
}

/** Each genesis validator's consensus key and name, by account address. */
export function genesisIdentities(genesis: Genesis): Map<string, ValidatorIdentity> {
  const own = consensusKey(genesis).pubKey;
  return new Map(
    genesis.app_state.staking.validators.map((v, index) => [
      v.address,
      { pubKey: index === 0 || v.consensus_pubkey === undefined ? own : Buffer.from(v.consensus_pubkey, 'base64'), name: v.name },
    ]),
  );
}

export async function stakingValidators(state: KVReader, identities: ReadonlyMap<string, ValidatorIdentity>): Promise<StakingValidator[]> {
  const all = [...(await validators(state))].map(([account, power]) => {
    const operatorBytes = bech32Decode(account).bytes;
    const identity = identities.get(account);
    return {
      operatorAddress: bech32Encode(validatorOperatorPrefix, operatorBytes),
      operatorBytes,
      // A validator genesis does not know (none in the simulation) would show an empty key.
      consensusPubKey: identity?.pubKey ?? Buffer.alloc(0),
      tokens: BigInt(power) * powerReduction,
      moniker: identity?.name ?? '',
    };
  });
  return all.sort((a, b) => Buffer.compare(a.operatorBytes, b.operatorBytes));
}
