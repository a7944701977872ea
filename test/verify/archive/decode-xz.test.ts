/**
 * The xz decoder's memory: it decodes only as fast as its reader reads. A 65 MiB binary whose last 64
 * MiB are zeros expands about 100 times (under the inflate guard's 1000), which the decoder used to
 * push whole into memory once its input had ended; read slowly, at most a few MiB may now wait.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { test } from 'node:test';

import { binaryLike, compress } from '../../../scripts/make-compressed-archives.js';
import { createDecompressor } from '../../../src/verify/archive/decompress.js';
import { createInflateGuard } from '../../../src/verify/archive/inflate-guard.js';

test('a 65 MiB xz stream read slowly: decoded a piece at a time, never more than 4 MiB waiting', async () => {
  const binary = Buffer.concat([binaryLike(1 << 20), Buffer.alloc(64 << 20)]);
  // xz -0: a second or two for the zeros; the 64 MiB of zeros become a few KiB, 2 MiB per LZMA2 chunk.
  const xz = compress('xz', binary, ['-0']);
  const guard = createInflateGuard({ what: 'test' }, { maxBytes: 1 << 30, maxEntries: 10 });
  const stages = createDecompressor('xz', guard);
  // Given as fast as it is taken: the whole input arrives and ends long before the output is read.
  let stream: NodeJS.ReadableStream = Readable.from(
    (function* () {
      for (let at = 0; at < xz.length; at += 64 * 1024) yield xz.subarray(at, at + 64 * 1024);
    })(),
  );
  for (const stage of stages) stream = stream.pipe(stage);
  const waiting = (): number => stages.reduce((sum, stage) => sum + stage.readableLength + stage.writableLength, 0);

  let most = 0;
  let bytes = 0;
  const hash = createHash('sha256');
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    most = Math.max(most, waiting());
    bytes += chunk.length;
    hash.update(chunk);
    // A slow reader: a disk, or the tar extractor behind it.
    await new Promise((resolve) => setImmediate(resolve));
  }

  assert.equal(bytes, binary.length);
  assert.equal(hash.digest('hex'), createHash('sha256').update(binary).digest('hex'));
  assert.ok(most < 4 << 20, `${most} bytes waited between the stages`);
});
