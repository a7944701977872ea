/** Accounts (x/auth) and validators (x/staking), as far as governance needs them. */
import type { KVReader, KVStore } from '../store/kv.js';
import { prefixed } from '../store/kv.js';
import { keyAddress, moduleAddress } from '../util/bech32.js';

/** The governance module account: the only authority of the upgrade messages. */
export const govAddress = moduleAddress('gov');

const accountKey = (address: string) => Buffer.from(`s/auth/a/${address}`);
const validatorPrefix = 's/staking/v/';

export function setAccount(kv: KVStore, address: string, name: string): void {
  kv.set(accountKey(address), Buffer.from(name));
}

const sequenceKey = (address: string) => Buffer.from(`s/auth/seq/${address}`);

/** The account's sequence: how many transactions it has signed (x/auth's BaseAccount.sequence). */
export async function getSequence(kv: KVReader, address: string): Promise<bigint> {
  const value = await kv.get(sequenceKey(address));
  return value === undefined ? 0n : BigInt(value.toString('utf8'));
}

export function setSequence(kv: KVStore, address: string, sequence: bigint): void {
  kv.set(sequenceKey(address), Buffer.from(sequence.toString()));
}

export async function hasAccount(kv: KVReader, address: string): Promise<boolean> {
  return (await kv.get(accountKey(address))) !== undefined;
}

export function setValidator(kv: KVStore, address: string, power: number): void {
  prefixed(kv, validatorPrefix).set(Buffer.from(address), Buffer.from(String(power)));
}

/** Removes every validator (the in-place testnet replaces the set). */
export async function removeValidators(kv: KVStore): Promise<void> {
  const store = prefixed(kv, validatorPrefix);
  for (const [key] of await store.range(Buffer.alloc(0))) store.delete(key);
}

/** Voting power by account address. */
export async function validators(kv: KVReader): Promise<Map<string, number>> {
  const entries = await prefixed(kv, validatorPrefix).range(Buffer.alloc(0));
  return new Map(entries.map(([key, value]) => [key.toString('utf8'), Number(value.toString('utf8'))]));
}

/** The key names every simulated keyring knows; `--from` takes one of these or an address. */
export const genesisKeyNames = ['validator', 'alice', 'bob'] as const;

export { keyAddress };
