/**
 * Transactions waiting for the next block. Each submitter gets a promise settled when the block that
 * includes its transaction is committed, or rejected when the node halts first.
 */
import type { BlockRecord, TxResult } from '../chain/block.js';

interface Entry {
  tx: Buffer;
  resolve(value: { height: number; result: TxResult }): void;
  reject(error: Error): void;
}

export class Mempool {
  private entries: Entry[] = [];

  add(tx: Buffer): Promise<{ height: number; result: TxResult }> {
    return new Promise((resolve, reject) => this.entries.push({ tx, resolve, reject }));
  }

  /** The transactions waiting, oldest first (`unconfirmed_txs`). */
  pending(): Buffer[] {
    return this.entries.map((e) => e.tx);
  }

  /** Everything waiting, removed from the pool, for the next block. */
  take(): Entry[] {
    const taken = this.entries;
    this.entries = [];
    return taken;
  }

  settle(entries: readonly Entry[], block: BlockRecord): void {
    entries.forEach((entry, i) => entry.resolve({ height: Number(block.header.height), result: block.results[i] as TxResult }));
  }

  fail(entries: readonly Entry[], error: Error): void {
    for (const entry of [...entries, ...this.take()]) entry.reject(error);
  }
}
