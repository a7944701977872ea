/**
 * The node's embedded store: LevelDB (classic-level) under `<home>/data/application.db`.
 * Layout of the raw keys:
 *   `s/<store>/…`   module stores (the upgrade module's keys follow upgrade-module.md §2.5 under `s/upgrade/`)
 *   `c/…`           commit info: last height, app hash, mounted stores, applied store upgrades
 *   `b/<height>`    block records (header, id, size, transactions) for the RPC `/block` queries
 *   `v/…`, `h/…`    state history for queries at a past height (history.ts), pruned per `--pruning`
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

import { ClassicLevel } from 'classic-level';

import { SimError } from '../util/errors.js';
import { baselineOps, earliestOp, historicalReader, type OrderedReader, pruneOps, readEarliest, readThrough, throughOp, under, versionOps } from './history.js';
import type { BatchOp, KVReader } from './kv.js';
import { defaultPruning, pruneHeight, type PruningOptions } from './pruning.js';

export type Level = ClassicLevel<Buffer, Buffer>;

export interface Database {
  /** The committed state. */
  readonly reader: KVReader;
  /** The first height `readerAt` can read; undefined until a block was committed with history. */
  earliestHeight(): number | undefined;
  /** The state as committed at `height`, between earliestHeight() and the last committed height. */
  readerAt(height: number): KVReader;
  /**
   * Writes one block's changes at once, flushed to disk before it resolves, with their history
   * entries and whatever pruning removes at that height. `lastHeight` is the height committed before.
   */
  commit(ops: BatchOp[], block: { height: number; lastHeight: number }): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** Default: the SDK's `default` (keep 362880 states, prune every 10 blocks). */
  pruning?: PruningOptions;
}

export async function openDatabase(dataDir: string, options: DatabaseOptions = {}): Promise<Database> {
  const pruning = options.pruning ?? defaultPruning;
  await mkdir(dataDir, { recursive: true });
  const location = path.join(dataDir, 'application.db');
  const db: Level = new ClassicLevel<Buffer, Buffer>(location, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  try {
    await db.open();
  } catch (error) {
    const locked = (error as { cause?: { code?: string } }).cause?.code === 'LEVEL_LOCKED';
    throw new SimError(
      locked ? 'SIM_STORE_LOCKED' : 'SIM_STORE_OPEN',
      locked ? `the store ${location} is in use by another process` : `cannot open the store ${location}`,
      {
        cause: error,
        hint: locked ? 'another node is running with this --home; stop it first' : 'check the permissions of the data folder',
      },
    );
  }
  const reader: KVReader = {
    get: async (key) => db.get(Buffer.from(key)),
    range: async (prefix) => {
      const entries: Array<[Buffer, Buffer]> = [];
      for await (const entry of db.iterator(under(Buffer.from(prefix)))) entries.push(entry);
      return entries;
    },
  };
  const ordered: OrderedReader = {
    get: (key) => db.get(key),
    entries: (range) => db.iterator(range),
  };
  let earliest = await readEarliest(ordered);
  let through = await readThrough(ordered);
  return {
    reader,
    earliestHeight: () => earliest,
    readerAt: (height) => historicalReader(ordered, reader, height),
    commit: async (ops, { height, lastHeight }) => {
      const all: BatchOp[] = [];
      let first = earliest;
      if (first === undefined || through !== lastHeight) {
        // No history yet, or blocks were committed without it: it starts at the last committed state.
        if (lastHeight > 0) all.push(...(await baselineOps(ordered, lastHeight)));
        first = lastHeight > 0 ? lastHeight : height;
      }
      all.push(...ops, ...versionOps(ops, height), throughOp(height));
      const pruneTo = pruneHeight(pruning, height);
      if (pruneTo >= first) {
        all.push(...(await pruneOps(ordered, pruneTo)));
        first = pruneTo + 1;
      }
      if (first !== earliest) all.push(earliestOp(first));
      await db.batch(
        all.map((op) => (op.type === 'put' ? { type: 'put', key: op.key, value: op.value as Buffer } : { type: 'del', key: op.key })),
        { sync: true },
      );
      earliest = first;
      through = height;
    },
    close: () => db.close(),
  };
}
