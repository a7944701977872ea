/** `file://` sources (CHAINVISOR_ALLOW_FILE_URLS): copied into the work folder, hashed on the way. */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';

import { isFsError } from '../shared/errors/index.js';
import { openReadStream } from '../shared/fsread/index.js';
import { formatBytes } from '../shared/units.js';
import type { Checksum, ChecksumAlgo } from '../verify/index.js';
import { DownloadAbortedError, DownloadError, DownloadIoError, DownloadTooLargeError } from './errors.js';
import { checkUrlAllowed, type UrlPolicy } from './policy.js';
import type { DownloadSource } from './source.js';

export interface CopyFileUrlOptions {
  source: DownloadSource;
  file: string;
  algo: ChecksumAlgo;
  maxBytes: number;
  policy: UrlPolicy;
  /** For messages: `linux/amd64 binary`. */
  what: string;
  signal?: AbortSignal;
}

export async function copyFileUrl(options: CopyFileUrlOptions): Promise<{ bytes: number; checksum: Checksum; attempts: number; resumes: number }> {
  const { source, maxBytes } = options;
  checkUrlAllowed(source.url, options.policy);
  const from = fileURLToPath(source.url);
  // Opened by the rule of every read (shared/fsread): a regular file only, checked on the descriptor
  // that is then read; the size limit is applied by the download's own tap below.
  const read = await openReadStream(from, options.signal ? { signal: options.signal } : {});
  if (read.status === 'missing') {
    throw new DownloadError(options.what, source.shown, 'no such file', { attempts: 1, hint: 'fix the file:// URL in the Info' });
  }
  if (read.status === 'refused') {
    throw new DownloadError(options.what, source.shown, `not a file to download: ${read.reason}`, {
      attempts: 1,
      hint: 'a file:// URL must name the archive or binary itself, a regular file chainvisor can read',
    });
  }
  if (read.size > maxBytes) {
    read.stream.destroy();
    throw new DownloadTooLargeError(
      source.shown,
      `the file holds ${read.size} bytes, over the limit of ${maxBytes} bytes (${formatBytes(maxBytes)})`,
      maxBytes,
    );
  }
  const hash = createHash(options.algo);
  let bytes = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      if (bytes > maxBytes) {
        callback(new DownloadTooLargeError(source.shown, `the file grew past the limit of ${maxBytes} bytes`, maxBytes));
        return;
      }
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  try {
    await pipeline(read.stream, tap, createWriteStream(options.file, { mode: 0o600 }), options.signal ? { signal: options.signal } : {});
  } catch (error) {
    if (options.signal?.aborted) throw new DownloadAbortedError(options.what, source.shown);
    if (error instanceof DownloadTooLargeError) throw error;
    if (isFsError(error)) throw new DownloadIoError('copy', from, error);
    throw error;
  }
  return { bytes, checksum: { algo: options.algo, hex: hash.digest('hex') }, attempts: 1, resumes: 0 };
}
