/**
 * The compressions chainvisor reads, one row each: how a stream of it begins and the decoder that reads
 * it. go-getter's `Decompressors` map is the model. Every row's output goes through the same inflate
 * guard (see decompress.ts), so a new compression is one file and one row here, and is guarded against
 * bombs the day it is added.
 */
import type { Duplex } from 'node:stream';

import { bzip2 } from './decode-bzip2.js';
import { gzip } from './decode-gzip.js';
import { xz } from './decode-xz.js';
import { zstd } from './decode-zstd.js';
import type { InflateGuard } from './inflate-guard.js';

export interface Decoder {
  /** True when `head` (the first bytes, at least 6 when the file has them) begins such a stream. */
  magic(head: Buffer): boolean;
  /**
   * The stages between the compressed bytes and their reader, in order. They tell `guard.readFrom`
   * how many compressed bytes they have read, and their output must wait for its reader, or put each
   * piece to `guard.check` as it is produced (see InflateGuard).
   */
  stages(guard: InflateGuard): Duplex[];
  /** A failure of those stages in the operator's terms (a StreamError's message as it is). */
  explain(error: Error): string;
}

export const decoders = { gzip, bzip2, xz, zstd } as const satisfies Record<string, Decoder>;

export type Compression = keyof typeof decoders;

export const compressions = Object.keys(decoders) as Compression[];

export function isCompression(name: string): name is Compression {
  return Object.hasOwn(decoders, name);
}

/** The compression `head` begins with, if any. */
export function compressionOf(head: Buffer): Compression | undefined {
  return compressions.find((name) => decoders[name].magic(head));
}
