/**
 * The compressions chainvisor reads, one row each: how a stream of it begins and the decoder that reads
 * it. go-getter's `Decompressors` map is the model. Every row's output goes through the same inflate
 * guard (see decompress.ts), so a new compression is one file and one row here, and is guarded against
 * bombs the day it is added.
 */
import { bzip2 } from './decode-bzip2.js';
import { gzip } from './decode-gzip.js';
import { xz } from './decode-xz.js';
import { zstd } from './decode-zstd.js';
import type { Decoder } from './decoder.js';

export const decoders = { gzip, bzip2, xz, zstd } as const satisfies Record<string, Decoder>;

export type Compression = keyof typeof decoders;

export const compressions = Object.keys(decoders) as Compression[];

/** The compression `head` begins with, if any. */
export function compressionOf(head: Buffer): Compression | undefined {
  return compressions.find((name) => decoders[name].magic(head));
}
