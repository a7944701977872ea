/**
 * The mounted module stores. Each module's data lives under `s/<name>/`; the list of mounted stores
 * (with the height each was added at) is commit info under `c/stores/`. Store upgrades change it.
 */
import { readUint64BE, uint64BE } from '../util/bytes.js';
import type { KVReader, KVStore } from './kv.js';

const mountedPrefix = Buffer.from('c/stores/');
const appliedPrefix = Buffer.from('c/store-upgrades/');

export function storePrefix(name: string): Buffer {
  return Buffer.from(`s/${name}/`);
}

export interface MountedStore {
  name: string;
  /** 0 for stores mounted at genesis. */
  addedHeight: number;
}

export async function mountedStores(kv: KVReader): Promise<MountedStore[]> {
  return (await kv.range(mountedPrefix)).map(([key, value]) => ({
    name: key.subarray(mountedPrefix.length).toString('utf8'),
    addedHeight: Number(readUint64BE(value)),
  }));
}

export function mountStore(kv: KVStore, name: string, height: number): void {
  kv.set(Buffer.concat([mountedPrefix, Buffer.from(name)]), uint64BE(height));
}

export async function unmountStore(kv: KVStore, name: string): Promise<void> {
  kv.delete(Buffer.concat([mountedPrefix, Buffer.from(name)]));
  for (const [key] of await kv.range(storePrefix(name))) kv.delete(key);
}

export async function renameStore(kv: KVStore, from: string, to: string, height: number): Promise<void> {
  const source = storePrefix(from);
  for (const [key, value] of await kv.range(source)) {
    kv.set(Buffer.concat([storePrefix(to), key.subarray(source.length)]), value);
    kv.delete(key);
  }
  kv.delete(Buffer.concat([mountedPrefix, Buffer.from(from)]));
  mountStore(kv, to, height);
}

/** Plan name → height at which its store upgrades were applied. */
export async function appliedStoreUpgrades(kv: KVReader): Promise<Record<string, number>> {
  const applied: Record<string, number> = {};
  for (const [key, value] of await kv.range(appliedPrefix)) {
    applied[key.subarray(appliedPrefix.length).toString('utf8')] = Number(readUint64BE(value));
  }
  return applied;
}

export function recordStoreUpgrade(kv: KVStore, planName: string, height: number): void {
  kv.set(Buffer.concat([appliedPrefix, Buffer.from(planName)]), uint64BE(height));
}
