/** What a compression's row of the formats table (formats.ts) names as its decoder: its stages, and what its failures mean. */
import type { Duplex } from 'node:stream';

import type { InflateGuard } from './inflate-guard.js';

export interface Decoder {
  /**
   * The stages between the compressed bytes and their reader, in order. They tell `guard.readFrom`
   * how many compressed bytes they have read, and their output must wait for its reader, or put each
   * piece to `guard.check` as it is produced (see InflateGuard).
   */
  stages(guard: InflateGuard): Duplex[];
  /** A failure of those stages in the operator's terms (a StreamError's message as it is). */
  explain(error: Error): string;
  /**
   * What the first bytes of a stream (a file's head) decompress to, when that is cheap to know, or
   * undefined when they cannot be read. Detection then names a tar or an executable inside before
   * anything is extracted (for messages: the extraction decides from the decompressed bytes).
   */
  peek?(head: Buffer): Buffer | undefined;
}
