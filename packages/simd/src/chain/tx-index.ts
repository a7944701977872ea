/**
 * The indexes CometBFT keeps beside its block store: transaction hash → (height, index) for `/tx` and
 * `/tx_search`, block hash → height for `/block_by_hash`. Written into the batch of the block they
 * index, after the application hash is computed: they are node data, not application state.
 */
import type { KVReader, KVStore } from '../store/kv.js';
import { readUint64BE, uint64BE } from '../util/bytes.js';
import type { BlockRecord } from './block.js';

const txPrefix = Buffer.from('ix/tx/');
const blockHashPrefix = Buffer.from('ix/block/');

export interface TxLocation {
  height: number;
  index: number;
}

export function indexBlock(kv: KVStore, block: BlockRecord): void {
  const height = uint64BE(Number(block.header.height));
  kv.set(Buffer.concat([blockHashPrefix, Buffer.from(block.block_id.hash, 'hex')]), height);
  block.results.forEach((result, i) => {
    const index = Buffer.alloc(4);
    index.writeUInt32BE(i);
    kv.set(Buffer.concat([txPrefix, Buffer.from(result.hash, 'hex')]), Buffer.concat([height, index]));
  });
}

function location(value: Buffer): TxLocation {
  return { height: Number(readUint64BE(value)), index: value.readUInt32BE(8) };
}

export async function findTx(kv: KVReader, hash: Uint8Array): Promise<TxLocation | undefined> {
  const value = await kv.get(Buffer.concat([txPrefix, hash]));
  return value === undefined ? undefined : location(value);
}

/** Every indexed transaction, in no particular order. */
export async function allTxs(kv: KVReader): Promise<TxLocation[]> {
  return (await kv.range(txPrefix)).map(([, value]) => location(value));
}

export async function findBlockHeight(kv: KVReader, hash: Uint8Array): Promise<number | undefined> {
  const value = await kv.get(Buffer.concat([blockHashPrefix, hash]));
  return value === undefined ? undefined : Number(readUint64BE(value));
}
