/** The byte-level fields of the .xz format 1.0.4 that the container walk reads and writes. */
import { StreamError } from './stream-error.js';

export const streamMagic = Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]);
export const footerMagic = Buffer.from([0x59, 0x5a]);

/** The decoder's own words for bad bytes: `corrupt data (<what>)`. */
export const corrupt = (detail: string): StreamError => new StreamError(`corrupt data (${detail})`);

/** A little-endian 32-bit field (CRC32s and the footer's backward size). */
export function u32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(value >>> 0, 0);
  return b;
}

/** A multibyte integer (at most 9 bytes) at `at`: its value and its length. */
export function readVarint(b: Buffer, at: number): [bigint, number] {
  let value = 0n;
  for (let i = 0; i < 9 && at + i < b.length; i++) {
    const byte = b[at + i] as number;
    value |= BigInt(byte & 0x7f) << BigInt(7 * i);
    if ((byte & 0x80) === 0) return [value, i + 1];
  }
  throw corrupt('a block header number runs past the header');
}

export function writeVarint(value: bigint): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80n) {
    bytes.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  bytes.push(Number(rest));
  return Buffer.from(bytes);
}
