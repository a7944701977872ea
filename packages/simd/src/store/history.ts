/**
 * State history: what the store held at a past height, for queries with a height. Every write of a
 * block to a state key also writes a version entry in the same batch:
 *   `v/<escaped key>\x00\x01<height, uint64 BE>` → `\x01<value>` (put) or `\x00` (delete)
 * The key is escaped (0x00 → 0x00 0xFF, then the 0x00 0x01 terminator) so that version entries sort
 * by key, then height, and every key under a prefix stays under the escaped prefix. Reading key K at
 * height H is one reverse seek to the newest version ≤ H; a range at H walks the versions under the
 * prefix. `h/earliest` is the first height that can be read, `h/through` the last one versioned. Block records (`b/…`) and their
 * indexes (`ix/…`) belong to the block store, not to the state: they are not versioned and read the same at every height.
 */
import { readUint64BE, uint64BE } from '../util/bytes.js';
import type { BatchOp, KVReader } from './kv.js';

/** What history needs of the database: reads in key order (classic-level's iterator options). */
export interface OrderedReader {
  get(key: Buffer): Promise<Buffer | undefined>;
  entries(range: { gte?: Buffer; lt?: Buffer; lte?: Buffer; reverse?: boolean; limit?: number }): AsyncIterable<[Buffer, Buffer]>;
}

const versionPrefix = Buffer.from('v/');
const terminator = Buffer.from([0x00, 0x01]);
const put = Buffer.from([0x01]);
const tombstone = Buffer.from([0x00]);

const earliestKey = Buffer.from('h/earliest');
/** The last height whose writes were versioned: a gap (blocks committed without history) restarts it. */
const throughKey = Buffer.from('h/through');

/** Keys that are not state: block records, and history's own entries. */
export function isVersioned(key: Uint8Array): boolean {
  const k = Buffer.from(key);
  if (k[1] === 0x2f && (k[0] === 0x62 || k[0] === 0x76 || k[0] === 0x68)) return false; // b/ v/ h/
  return !(k[0] === 0x69 && k[1] === 0x78 && k[2] === 0x2f); // ix/: the block store's tx and block-hash indexes
}

function escape(key: Uint8Array): Buffer {
  const out: number[] = [];
  for (const byte of key) {
    out.push(byte);
    if (byte === 0x00) out.push(0xff);
  }
  return Buffer.from(out);
}

function unescape(encoded: Buffer): Buffer {
  const out: number[] = [];
  for (let i = 0; i < encoded.length; i++) {
    out.push(encoded[i] as number);
    if (encoded[i] === 0x00) i++;
  }
  return Buffer.from(out);
}

function versionStem(key: Uint8Array): Buffer {
  return Buffer.concat([versionPrefix, escape(key), terminator]);
}

export function versionKey(key: Uint8Array, height: number): Buffer {
  return Buffer.concat([versionStem(key), uint64BE(height)]);
}

/** The stem (everything but the height) and the height of a version entry's key. */
function splitVersionKey(vkey: Buffer): { stem: Buffer; height: number } {
  return { stem: vkey.subarray(0, vkey.length - 8), height: Number(readUint64BE(vkey.subarray(vkey.length - 8))) };
}

function keyOfStem(stem: Buffer): Buffer {
  return unescape(stem.subarray(versionPrefix.length, stem.length - terminator.length));
}

function decodeVersion(value: Buffer): Buffer | undefined {
  return value[0] === 0x01 ? value.subarray(1) : undefined;
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

/** The key range of every key starting with `prefix`, as LevelDB iterator bounds. */
export function under(prefix: Buffer): { gte: Buffer; lt?: Buffer } {
  const end = prefixEnd(prefix);
  return end === undefined ? { gte: prefix } : { gte: prefix, lt: end };
}

/** The version entries recording a block's writes at `height`. */
export function versionOps(ops: readonly BatchOp[], height: number): BatchOp[] {
  return ops
    .filter((op) => isVersioned(op.key))
    .map((op) => ({
      type: 'put',
      key: versionKey(op.key, height),
      value: op.type === 'put' ? Buffer.concat([put, op.value ?? Buffer.alloc(0)]) : tombstone,
    }));
}

/**
 * History for a store that has none yet (a data folder written before history existed), or whose
 * history has a gap: every state key as it is now, recorded at `height`, the last committed height.
 * Version entries from before a gap are dropped, since they may miss deletions.
 */
export async function baselineOps(db: OrderedReader, height: number): Promise<BatchOp[]> {
  const ops: BatchOp[] = [];
  for await (const [key] of db.entries(under(versionPrefix))) ops.push({ type: 'del', key });
  for await (const [key, value] of db.entries({})) {
    if (isVersioned(key)) ops.push({ type: 'put', key: versionKey(key, height), value: Buffer.concat([put, value]) });
  }
  return ops;
}

/**
 * Deletes what no height above `pruneTo` needs: for each key, every version ≤ `pruneTo` except the
 * newest one when it holds a value (it is the key's value until its next write).
 */
export async function pruneOps(db: OrderedReader, pruneTo: number): Promise<BatchOp[]> {
  const ops: BatchOp[] = [];
  let stem: Buffer | undefined;
  let floor: { key: Buffer; live: boolean } | undefined;
  const settle = () => {
    if (floor !== undefined && !floor.live) ops.push({ type: 'del', key: floor.key });
    floor = undefined;
  };
  for await (const [vkey, value] of db.entries(under(versionPrefix))) {
    const split = splitVersionKey(vkey);
    if (stem === undefined || !split.stem.equals(stem)) {
      settle();
      stem = split.stem;
    }
    if (split.height > pruneTo) continue;
    if (floor !== undefined) ops.push({ type: 'del', key: floor.key });
    floor = { key: vkey, live: value[0] === 0x01 };
  }
  settle();
  return ops;
}

/** The state as committed at `height` (which the caller has checked is kept). */
export function historicalReader(db: OrderedReader, latest: KVReader, height: number): KVReader {
  return {
    async get(key) {
      if (!isVersioned(key)) return latest.get(key);
      const stem = versionStem(key);
      for await (const [vkey, value] of db.entries({ gte: stem, lte: Buffer.concat([stem, uint64BE(height)]), reverse: true, limit: 1 })) {
        return decodeVersion(value);
      }
      return undefined;
    },
    async range(prefix) {
      if (!isVersioned(prefix)) return latest.range(prefix);
      const found: Array<[Buffer, Buffer]> = [];
      let stem: Buffer | undefined;
      let current: Buffer | undefined;
      const settle = () => {
        if (stem !== undefined && current !== undefined) found.push([keyOfStem(stem), current]);
      };
      for await (const [vkey, value] of db.entries(under(Buffer.concat([versionPrefix, escape(prefix)])))) {
        const split = splitVersionKey(vkey);
        if (stem === undefined || !split.stem.equals(stem)) {
          settle();
          stem = split.stem;
          current = undefined;
        }
        if (split.height <= height) current = decodeVersion(value);
      }
      settle();
      return found;
    },
  };
}

export async function readEarliest(db: OrderedReader): Promise<number | undefined> {
  const value = await db.get(earliestKey);
  return value === undefined ? undefined : Number(readUint64BE(value));
}

export function earliestOp(height: number): BatchOp {
  return { type: 'put', key: earliestKey, value: uint64BE(height) };
}

export async function readThrough(db: OrderedReader): Promise<number | undefined> {
  const value = await db.get(throughKey);
  return value === undefined ? undefined : Number(readUint64BE(value));
}

export function throughOp(height: number): BatchOp {
  return { type: 'put', key: throughKey, value: uint64BE(height) };
}
