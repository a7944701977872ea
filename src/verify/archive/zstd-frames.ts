/**
 * Where a zstd stream's frames begin and end, read from the headers alone (RFC 8878 §3.1; nothing is
 * decompressed here): each frame is handed to a decoder of its own (decode-zstd.ts), and a stream that
 * stops inside a frame is refused.
 * Why, and the rest of its rules: docs/design/downloads.md#verifyarchivezstd-framests.
 */
const frameMagic = 0xfd2fb528;
/** Skippable frames: 0x184D2A50 to 0x184D2A5F. */
const skippableMask = 0xfffffff0;
const skippableMagic = 0x184d2a50;

/** The magic of a zstd frame or of a skippable frame (what pzstd's output begins with). */
export function beginsZstd(b: Buffer): boolean {
  if (b.length < 4) return false;
  const value = b.readUInt32LE(0);
  return value === frameMagic || (value & skippableMask) >>> 0 === skippableMagic;
}

export interface ZstdFrameWalk {
  /**
   * The next compressed bytes. `frame` receives the bytes of zstd frames (skippable frames left out)
   * and `null` after each frame's last byte. Throws on bytes that cannot begin a frame or on a
   * reserved block type.
   */
  push(chunk: Buffer, frame: (bytes: Buffer | null) => void): void;
  /** True when the bytes so far end exactly after a whole frame. */
  readonly complete: boolean;
}

type Step = (field: Buffer) => void;

export function createZstdFrameWalk(): ZstdFrameWalk {
  /** Bytes of the field being collected, how many it needs, and what reads it. */
  let field = Buffer.alloc(0);
  let want = 4;
  let step: Step;
  /** Bytes to pass over (block contents, skippable frames) before the next field. */
  let skip = 0;
  let frames = 0;
  let checksum = false;
  /** Inside a zstd frame (its bytes go to `frame`), not a skippable one. */
  let inFrame = false;
  /** The frame ends once `skip` is passed (last block, no checksum). */
  let endAfterSkip = false;
  let emit: (bytes: Buffer | null) => void = () => undefined;

  const collect = (n: number, next: Step): void => {
    field = Buffer.alloc(0);
    want = n;
    step = next;
  };
  const endFrame = (): void => {
    frames += 1;
    inFrame = false;
    emit(null);
    collect(4, magic);
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
    inFrame = true;
    emit(b);
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
    else if (skip === 0) endFrame();
    else endAfterSkip = true;
  };
  step = magic;

  return {
    push(chunk, frame) {
      emit = frame;
      let at = 0;
      while (at < chunk.length) {
        if (skip > 0) {
          const n = Math.min(skip, chunk.length - at);
          if (inFrame) frame(chunk.subarray(at, at + n));
          skip -= n;
          at += n;
          if (skip === 0 && endAfterSkip) {
            endAfterSkip = false;
            endFrame();
          }
          continue;
        }
        const n = Math.min(want - field.length, chunk.length - at);
        const part = chunk.subarray(at, at + n);
        field = Buffer.concat([field, part]);
        at += n;
        // A frame's magic is handed on once it is known not to be a skippable frame's.
        if (inFrame) frame(part);
        if (field.length === want) step(field);
      }
    },
    get complete() {
      return frames > 0 && skip === 0 && step === magic && field.length === 0;
    },
  };
}
