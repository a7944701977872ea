/**
 * A stream with a SHA-256 check (`xz --check=sha256`, which go-getter reads) rewritten on its way to the
 * decoder, which reads no SHA-256, as one without a check: these are its stream header, index and footer
 * (xz-container.ts drops each block's 32-byte check and hands it to decode-xz.ts to verify).
 */
import { crc32 } from 'node:zlib';

import { footerMagic, streamMagic, u32, writeVarint } from './xz-fields.js';

/** What the index lists of one block. */
export interface IndexRecord {
  unpadded: bigint;
  uncompressed: bigint;
}

const noCheck = Buffer.from([0, 0]);

/** The stream header with the flags of no check. */
export function checklessStreamHeader(): Buffer {
  return Buffer.concat([streamMagic, noCheck, u32(crc32(noCheck))]);
}

/** The index of the same blocks without their checks (`checkSize` bytes each), padded, with its CRC32. */
export function checklessIndex(records: readonly IndexRecord[], checkSize: number): Buffer {
  const body = Buffer.concat([
    Buffer.from([0]),
    writeVarint(BigInt(records.length)),
    ...records.flatMap((entry) => [writeVarint(entry.unpadded - BigInt(checkSize)), writeVarint(entry.uncompressed)]),
  ]);
  const padded = Buffer.concat([body, Buffer.alloc((4 - (body.length % 4)) % 4)]);
  return Buffer.concat([padded, u32(crc32(padded))]);
}

/** The stream footer after an index of `indexBytes` bytes, with the flags of no check. */
export function checklessFooter(indexBytes: number): Buffer {
  const tail = Buffer.concat([u32(indexBytes / 4 - 1), noCheck]);
  return Buffer.concat([u32(crc32(tail)), tail, footerMagic]);
}
