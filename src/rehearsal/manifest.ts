/**
 * The live table files of a LevelDB-family database (LevelDB, goleveldb, RocksDB, PebbleDB), read from
 * its MANIFEST: the log of version edits (32 KiB blocks of records, each a `NewFile`/`DeletedFile` list).
 * A hot copy is verified against it: every table the copied MANIFEST names must be in the copy, whole.
 * A torn last record (the MANIFEST was appended while being copied) ends the log, as the databases
 * themselves read it. An edit tag this reader does not know makes the answer `undefined` (not verified
 * by table; the copy is then trusted on the stability of the MANIFEST alone).
 */

export interface LiveTables {
  /** File number → size in bytes. */
  tables: Map<number, number>;
}

const blockSize = 32768;
const headerSize = 7;

/** The records of a LevelDB log (FULL, or FIRST…MIDDLE…LAST fragments), stopping at a torn tail. */
function* records(bytes: Buffer): Generator<Buffer> {
  let pending: Buffer[] = [];
  let offset = 0;
  while (offset + headerSize <= bytes.length) {
    const left = blockSize - (offset % blockSize);
    if (left < headerSize) {
      offset += left;
      continue;
    }
    const length = bytes.readUInt16LE(offset + 4);
    const type = bytes[offset + 6];
    const start = offset + headerSize;
    if (type === 0 && length === 0) {
      offset += left; // zero padding (preallocated space)
      continue;
    }
    if (start + length > bytes.length) return; // torn tail
    const data = bytes.subarray(start, start + length);
    offset = start + length;
    if (type === 1) {
      pending = [];
      yield data;
    } else if (type === 2) pending = [data];
    else if (type === 3) pending.push(data);
    else if (type === 4) {
      pending.push(data);
      yield Buffer.concat(pending);
      pending = [];
    } else return;
  }
}

class Reader {
  offset = 0;
  constructor(readonly data: Buffer) {}
  get done(): boolean {
    return this.offset >= this.data.length;
  }
  varint(): number {
    let result = 0;
    let factor = 1;
    for (;;) {
      if (this.offset >= this.data.length) throw new RangeError('truncated varint');
      const byte = this.data[this.offset++] as number;
      result += (byte & 0x7f) * factor;
      if ((byte & 0x80) === 0) return result;
      factor *= 128;
    }
  }
  slice(): Buffer {
    const length = this.varint();
    const out = this.data.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }
}

/** RocksDB packs the path id into the high bits of the file number. */
const fileNumber = (packed: number): number => packed % 2 ** 62;

/** Applies one version edit; false when it holds a tag this reader does not know. */
function applyEdit(edit: Buffer, live: Map<number, number>): boolean {
  const r = new Reader(edit);
  while (!r.done) {
    const tag = r.varint();
    switch (tag) {
      case 1: // comparator
      case 201: // column family added (its name)
        r.slice();
        break;
      case 2: // log number
      case 3: // next file number
      case 4: // last sequence
      case 9: // previous log number
      case 11: // min log number to keep (RocksDB)
        r.varint();
        break;
      case 10: // max column family
      case 200: // column family
      case 203: // in atomic group
        r.varint();
        break;
      case 202: // column family dropped
        break;
      case 5: // compaction pointer
        r.varint();
        r.slice();
        break;
      case 6: {
        r.varint();
        live.delete(fileNumber(r.varint()));
        break;
      }
      case 7:
      case 100:
      case 103: {
        r.varint(); // level
        const number = fileNumber(r.varint());
        const size = r.varint();
        r.slice();
        r.slice();
        if (tag !== 7) {
          r.varint();
          r.varint();
        }
        if (tag === 103) {
          for (;;) {
            const field = r.varint();
            if (field === 1) break; // terminate
            r.slice();
          }
        }
        live.set(number, size);
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

/** The live tables named by a MANIFEST's content; undefined when an edit is not understood. */
export function liveTables(manifest: Buffer): LiveTables | undefined {
  const tables = new Map<number, number>();
  try {
    for (const record of records(manifest)) {
      if (!applyEdit(record, tables)) return undefined;
    }
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
  return { tables };
}

/** The file names a table number may have (`000123.ldb` for LevelDB, `000123.sst` otherwise). */
export function tableNames(number: number): string[] {
  const base = String(number).padStart(6, '0');
  return [`${base}.ldb`, `${base}.sst`];
}
