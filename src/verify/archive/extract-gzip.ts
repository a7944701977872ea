/** A gzip-compressed single executable (`simd.gz`), inflated with the byte cap applied as it streams. */
import { createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';

import { isFsError } from '../../shared/errors/index.js';
import { notReadError, openReadStream } from '../../shared/fsread/index.js';
import { ArchiveInvalidError, ArchiveLimitError, type Subject } from '../errors.js';
import { createBudget, type ExtractLimits } from '../limits.js';

export async function gunzipFile(subject: Subject, archive: string, dest: string, limits: ExtractLimits): Promise<number> {
  const budget = createBudget(subject, limits);
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      try {
        budget.bytes(chunk.length);
      } catch (error) {
        callback(error as Error);
        return;
      }
      callback(null, chunk);
    },
  });
  const read = await openReadStream(archive);
  if (read.status !== 'ok') throw notReadError(archive, read);
  try {
    await pipeline(read.stream, createGunzip(), counter, createWriteStream(dest, { flags: 'wx', mode: 0o755 }));
  } catch (error) {
    if (error instanceof ArchiveLimitError) throw error;
    if (isFsError(error)) throw error;
    throw new ArchiveInvalidError(subject, (error as Error).message, error);
  }
  return budget.totals.bytes;
}
