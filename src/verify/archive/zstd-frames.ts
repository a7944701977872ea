/**
 * Where a zstd stream's frames end, read from the headers alone, so that a truncated `.zst` is refused.
 * Node 22's zstd decompressor ends quietly on a stream cut short (Node 26's says "unexpected end of
 * file"); without this check a release cut mid-download by the mirror — whose checksum then matches
 * the cut file a careless publisher hashed — would install half a binary. Walks frames (RFC 8878 §3.1):
 * the header's size from its descriptor, then each block's 3-byte header and size, the optional
 * checksum, and skippable frames; nothing is decompressed here.
 */
const frameMagic = 0xfd2fb528;
/** Skippable frames: 0x184D2A50 to 0x184D2A5F. */
const skippableMask = 0xfffffff0;
const skippableMagic = 0x184d2a50;

export interface ZstdFrameCheck {
  /** The next compressed bytes; throws on bytes that cannot begin a frame or on a reserved block type. */
  push(chunk: Buffer): void;
  /** True when the bytes so far end exactly after a whole frame. */
  readonly complete: boolean;
  /** Frames (not skippable ones) whose header was read so far. */
  readonly begun: number;
}

type Step = (field: Buffer) => void;

export function createZstdFrameCheck(): ZstdFrameCheck {
  /** Bytes of the field being collected, how many it needs, and what reads it. */
  let field = Buffer.alloc(0);
  let want = 4;
  let step: Step;
  /** Bytes to pass over (block contents, skippable frames) before the next field. */
  let skip = 0;
  let frames = 0;
  let begun = 0;
  let checksum = false;

  const collect = (n: number, next: Step): void => {
    field = Buffer.alloc(0);
    want = n;
    step = next;
  };
  const magic: Step = (b) => {
    const value = b.readUInt32LE(0);
    if ((value & skippableMask) >>> 0 === skippableMagic) {
      collect(4, (size) => {
        skip = size.readUInt32LE(0);
        collect(4, magic);
        frames += 1;
      });
      return;
    }
    if (value !== frameMagic) throw new Error(`bytes ${b.toString('hex')} where a zstd frame should begin`);
    begun += 1;
    collect(1, descriptor);
  };
  const descriptor: Step = (b) => {
    const fhd = b[0] as number;
    const single = (fhd & 0x20) !== 0;
    checksum = (fhd & 0x04) !== 0;
    const dictId = [0, 1, 2, 4][fhd & 0x03] as number;
    const contentSize = [single ? 1 : 0, 2, 4, 8][fhd >> 6] as number;
    const rest = (single ? 0 : 1) + dictId + contentSize;
    if (rest === 0) collect(3, block);
    else collect(rest, () => collect(3, block));
  };
  const block: Step = (b) => {
    const header = b.readUIntLE(0, 3);
    const last = (header & 1) !== 0;
    const type = (header >> 1) & 3;
    const size = header >> 3;
    if (type === 3) throw new Error('a zstd block of the reserved type (corrupt data)');
    skip = type === 1 ? 1 : size;
    if (!last) collect(3, block);
    else if (checksum) collect(4, endFrame);
    else endFrame(Buffer.alloc(0));
  };
  const endFrame: Step = () => {
    frames += 1;
    collect(4, magic);
  };
  step = magic;

  return {
    push(chunk) {
      let at = 0;
      while (at < chunk.length) {
        if (skip > 0) {
          const n = Math.min(skip, chunk.length - at);
          skip -= n;
          at += n;
          continue;
        }
        const n = Math.min(want - field.length, chunk.length - at);
        field = Buffer.concat([field, chunk.subarray(at, at + n)]);
        at += n;
        if (field.length === want) step(field);
      }
    },
    get complete() {
      return frames > 0 && skip === 0 && step === magic && field.length === 0;
    },
    get begun() {
      return begun;
    },
  };
}
