/**
 * gzip, by Node's zlib: several members one after another are read whole (as Go's gzip reader does),
 * a stream cut short is "unexpected end of file", and bytes after the last member that are not another
 * member are refused. Its output waits for its reader, so the guard's meter after it is enough.
 */
import { constants, createGunzip, gunzipSync } from 'node:zlib';

import type { Decoder } from './decoder.js';

/** 1f 8b and the deflate method (8), the only one defined. */
export const isGzip = (b: Buffer): boolean => b.length >= 3 && b[0] === 0x1f && b[1] === 0x8b && b[2] === 0x08;

export const gzip: Decoder = {
  stages: (guard) => {
    const gunzip = createGunzip();
    // Counted by zlib itself, before it hands on what those bytes gave.
    guard.readFrom(() => gunzip.bytesWritten);
    return [gunzip];
  },
  explain: (error) =>
    /unexpected end of file/.test(error.message) ? 'the stream ends before its end: the file is truncated' : `corrupt data (${error.message})`,
  peek: (head) => {
    try {
      // Sync flush: the prefix is a truncated stream by design.
      return gunzipSync(head, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: 1 << 20 });
    } catch {
      // Corrupt data: undecidable here; the tar reader that runs next reports it with context.
      return undefined;
    }
  },
};
