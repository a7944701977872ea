/** Byte helpers for store keys and hashes. */
import { createHash } from 'node:crypto';

/** Big-endian uint64, the encoding of heights and versions in the upgrade store (upgrade-module.md §2.5). */
export function uint64BE(value: number | bigint): Buffer {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64BE(BigInt(value));
  return buffer;
}

export function readUint64BE(buffer: Uint8Array): bigint {
  return Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength).readBigUInt64BE(0);
}

export function sha256(...parts: Array<Uint8Array | string>): Buffer {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
}

/** Upper-case hex, as CometBFT renders hashes. */
export function hexUpper(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex').toUpperCase();
}
