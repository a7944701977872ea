/**
 * The node's embedded store: LevelDB (classic-level) under `<home>/data/application.db`.
 * Layout of the raw keys:
 *   `s/<store>/…`   module stores (the upgrade module's keys follow upgrade-module.md §2.5 under `s/upgrade/`)
 *   `c/…`           commit info: last height, app hash, mounted stores, applied store upgrades
 *   `b/<height>`    block records (header, id, size, transactions) for the RPC `/block` queries
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ClassicLevel } from 'classic-level';
import { SimError } from '../util/errors.js';
import type { BatchOp, KVReader } from './kv.js';

export type Level = ClassicLevel<Buffer, Buffer>;

export interface Database {
  /** The committed state. */
  readonly reader: KVReader;
  /** Writes one block's changes at once, flushed to disk before it resolves. */
  commit(ops: BatchOp[]): Promise<void>;
  close(): Promise<void>;
}

function prefixEnd(prefix: Buffer): Buffer | undefined {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if ((end[i] as number) < 0xff) {
      end[i] = (end[i] as number) + 1;
      return end.subarray(0, i + 1);
    }
  }
  return undefined;
}

export async function openDatabase(dataDir: string): Promise<Database> {
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
      const p = Buffer.from(prefix);
      const end = prefixEnd(p);
      const entries: Array<[Buffer, Buffer]> = [];
      for await (const entry of db.iterator(end === undefined ? { gte: p } : { gte: p, lt: end })) entries.push(entry);
      return entries;
    },
  };
  return {
    reader,
    commit: async (ops) => {
      if (ops.length === 0) return;
      await db.batch(
        ops.map((op) => (op.type === 'put' ? { type: 'put', key: op.key, value: op.value as Buffer } : { type: 'del', key: op.key })),
        { sync: true },
      );
    },
    close: () => db.close(),
  };
}
