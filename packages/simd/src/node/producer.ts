/**
 * The block loop: one block every `--block-time`, transactions from the mempool, until stopped or
 * halted. Each block first waits for its votes (consensus.ts: at once when this validator holds
 * the power). A ChainHalt ends the loop with nothing of that block committed.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import type { App } from '../chain/app.js';
import type { BlockRecord } from '../chain/block.js';
import { ChainHalt } from '../upgrade/halt.js';
import { nowNanos } from '../util/time.js';
import type { Consensus } from './consensus.js';
import type { Mempool } from './mempool.js';

export interface ProducerOptions {
  app: App;
  mempool: Mempool;
  blockTimeMs: number;
  /** Each interval is blockTimeMs × (1 ± up to this fraction), uniformly: a chain whose block times vary (issue #35's ETA). */
  blockTimeJitter?: number;
  consensus: Consensus;
  /** Aborted to stop after the block in progress. */
  signal: AbortSignal;
  /** Told of each committed block (the RPC server publishes its events). */
  onCommit?: (block: BlockRecord) => Promise<void>;
}

/** Resolves with the halt that stopped production, or undefined when stopped by the signal. */
export async function produceBlocks(options: ProducerOptions): Promise<ChainHalt | undefined> {
  const { app, mempool, blockTimeMs, consensus, signal, onCommit } = options;
  consensus.newHeight(app.nextHeight);
  while (!signal.aborted) {
    const precommits = await consensus.decide(app.nextHeight, signal);
    if (precommits === undefined) break;
    // The block interval runs from the commit decision: a wait for votes does not shorten the next one.
    const started = Date.now();
    const entries = mempool.take();
    let block: BlockRecord;
    try {
      block = await app.produceBlock(
        nowNanos(),
        entries.map((e) => e.tx),
        consensus.simulatesNetwork ? precommits : undefined,
      );
      mempool.settle(entries, block);
    } catch (error) {
      const reason = error instanceof Error ? error : new Error(String(error));
      mempool.fail(entries, new Error(`the node stopped producing blocks at height ${app.nextHeight}: ${reason.message}`));
      if (error instanceof ChainHalt) return error;
      throw error;
    }
    consensus.newHeight(app.nextHeight);
    await onCommit?.(block);
    const jitter = options.blockTimeJitter ?? 0;
    const interval = jitter === 0 ? blockTimeMs : blockTimeMs * (1 + jitter * (2 * Math.random() - 1));
    const wait = interval - (Date.now() - started);
    try {
      await sleep(Math.max(0, wait), undefined, { signal });
    } catch (error) {
      if ((error as { name?: string }).name !== 'AbortError') throw error;
    }
  }
  return undefined;
}
