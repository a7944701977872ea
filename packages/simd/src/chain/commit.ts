/** Commit info: the last committed height and the application hash after it. */
import type { BatchOp, KVReader, KVStore } from '../store/kv.js';
import { readUint64BE, sha256, uint64BE } from '../util/bytes.js';

const heightKey = Buffer.from('c/height');
const appHashKey = Buffer.from('c/app_hash');

export interface CommitInfo {
  height: number;
  appHash: Buffer;
}

export async function getCommitInfo(kv: KVReader): Promise<CommitInfo> {
  const height = await kv.get(heightKey);
  return {
    height: height === undefined ? 0 : Number(readUint64BE(height)),
    appHash: (await kv.get(appHashKey)) ?? Buffer.alloc(0),
  };
}

export function setCommitInfo(kv: KVStore, info: CommitInfo): void {
  kv.set(heightKey, uint64BE(info.height));
  kv.set(appHashKey, info.appHash);
}

/** The hash of the state after a block: the previous hash chained with every write of the block. */
export function nextAppHash(previous: Buffer, ops: readonly BatchOp[]): Buffer {
  const parts: Buffer[] = [previous];
  for (const op of ops) parts.push(op.key, op.value ?? Buffer.from('\u0000deleted'));
  return sha256(...parts);
}
