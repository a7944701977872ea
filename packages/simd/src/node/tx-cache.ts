/**
 * CometBFT's mempool cache (mempool/cache.go, size 10000): a transaction seen before is refused with
 * `tx already exists in cache` before it reaches CheckTx. A transaction that fails CheckTx, or runs in a
 * block and fails there, leaves the cache (keep-invalid-txs-in-cache = false); a committed success stays.
 */
import type { BlockRecord } from '../chain/block.js';
import { txHash } from '../chain/tx.js';

export const txInCache = 'tx already exists in cache';

export class TxCache {
  private readonly hashes = new Set<string>();
  private readonly size: number;

  constructor(size = 10_000) {
    this.size = size;
  }

  /** Adds the transaction; false when it was already there. */
  push(tx: Uint8Array): boolean {
    const hash = txHash(tx);
    if (this.hashes.has(hash)) {
      // Seen again: it becomes the most recent entry.
      this.hashes.delete(hash);
      this.hashes.add(hash);
      return false;
    }
    this.hashes.add(hash);
    if (this.hashes.size > this.size) this.hashes.delete(this.hashes.values().next().value as string);
    return true;
  }

  remove(tx: Uint8Array): void {
    this.hashes.delete(txHash(tx));
  }

  /** After a block: its failed transactions leave the cache. */
  update(block: BlockRecord): void {
    for (const result of block.results) if (result.code !== 0) this.hashes.delete(result.hash);
  }
}
