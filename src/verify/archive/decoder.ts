/** What each row of the decoders' table (decoders.ts) gives: how its streams begin, and its stages. */
import type { Duplex } from 'node:stream';

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
