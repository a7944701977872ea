/**
 * gzip, by Node's zlib: several members one after another are read whole (as Go's gzip reader does),
 * a stream cut short is "unexpected end of file", and bytes after the last member that are not another
 * member are refused. Its output waits for its reader, so the guard's meter after it is enough.
 */
import { createGunzip } from 'node:zlib';

import type { Decoder } from './decoder.js';

export const gzip: Decoder = {
  // 1f 8b and the deflate method (8), the only one defined.
  magic: (b) => b.length >= 3 && b[0] === 0x1f && b[1] === 0x8b && b[2] === 0x08,
  stages: (guard) => {
    const gunzip = createGunzip();
    // Counted by zlib itself, before it hands on what those bytes gave.
    guard.readFrom(() => gunzip.bytesWritten);
    return [gunzip];
  },
  explain: (error) =>
    /unexpected end of file/.test(error.message) ? 'the stream ends before its end: the file is truncated' : `corrupt data (${error.message})`,
};
