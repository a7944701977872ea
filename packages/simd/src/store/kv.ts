/**
 * The key-value views the modules work on. Writes of a block go into an Overlay that is committed in
 * one synchronous batch, so a `kill -9` leaves the store at the end of some block, never in between.
 * Overlays branch (a proposal's messages run in a branch that is dropped when one of them fails).
 */
export interface KVReader {
  get(key: Uint8Array): Promise<Buffer | undefined>;
  /** Every entry whose key starts with `prefix`, in byte order. */
  range(prefix: Uint8Array): Promise<Array<[Buffer, Buffer]>>;
}

export interface KVStore extends KVReader {
  set(key: Uint8Array, value: Uint8Array): void;
  delete(key: Uint8Array): void;
}

export interface BatchOp {
  type: 'put' | 'del';
  key: Buffer;
  value?: Buffer;
}

/** Pending writes on top of a reader. */
export class Overlay implements KVStore {
  private readonly writes = new Map<string, Buffer | null>();

  constructor(private readonly parent: KVReader) {}

  async get(key: Uint8Array): Promise<Buffer | undefined> {
    const hex = Buffer.from(key).toString('hex');
    if (this.writes.has(hex)) return this.writes.get(hex) ?? undefined;
    return this.parent.get(key);
  }

  async range(prefix: Uint8Array): Promise<Array<[Buffer, Buffer]>> {
    const merged = new Map<string, Buffer>();
    for (const [key, value] of await this.parent.range(prefix)) merged.set(key.toString('hex'), value);
    const prefixHex = Buffer.from(prefix).toString('hex');
    for (const [hex, value] of this.writes) {
      if (!hex.startsWith(prefixHex)) continue;
      if (value === null) merged.delete(hex);
      else merged.set(hex, value);
    }
    return [...merged.keys()].sort().map((hex) => [Buffer.from(hex, 'hex'), merged.get(hex) as Buffer]);
  }

  set(key: Uint8Array, value: Uint8Array): void {
    this.writes.set(Buffer.from(key).toString('hex'), Buffer.from(value));
  }

  delete(key: Uint8Array): void {
    this.writes.set(Buffer.from(key).toString('hex'), null);
  }

  branch(): Overlay {
    return new Overlay(this);
  }

  /** Applies this overlay's writes to `target` (normally the overlay it branched from). */
  writeTo(target: KVStore): void {
    for (const [hex, value] of this.writes) {
      if (value === null) target.delete(Buffer.from(hex, 'hex'));
      else target.set(Buffer.from(hex, 'hex'), value);
    }
  }

  ops(): BatchOp[] {
    return [...this.writes.keys()].sort().map((hex) => {
      const value = this.writes.get(hex);
      return value === null || value === undefined ? { type: 'del', key: Buffer.from(hex, 'hex') } : { type: 'put', key: Buffer.from(hex, 'hex'), value };
    });
  }
}

/** A view of `kv` where every key is under `prefix` (one module's store). */
export function prefixed(kv: KVStore, prefix: Uint8Array | string): KVStore;
export function prefixed(kv: KVReader, prefix: Uint8Array | string): KVReader;
export function prefixed(kv: KVReader | KVStore, prefix: Uint8Array | string): KVReader | KVStore {
  const p = Buffer.from(prefix);
  const full = (key: Uint8Array) => Buffer.concat([p, key]);
  return {
    get: (key) => kv.get(full(key)),
    range: async (sub) => (await kv.range(full(sub))).map(([key, value]): [Buffer, Buffer] => [key.subarray(p.length), value]),
    set: (key, value) => (kv as KVStore).set(full(key), value),
    delete: (key) => (kv as KVStore).delete(full(key)),
  };
}
