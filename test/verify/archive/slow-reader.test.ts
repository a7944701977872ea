/**
 * Every decoder decodes only as fast as its reader reads (#31). A binary whose first MiB looks honest
 * and whose rest is zeros expands a few hundred times — under the inflate guard's 1000, so nothing
 * refuses it — and the xz and bzip2 decoders used to hold all of it in memory: xz once its input had
 * ended, bzip2 at every write. Read slowly, what waits between the stages is now at most a few MiB
 * (gzip, zstd, xz) or one bzip2 block (up to 46 MB from 900 kB of runs, decoded in one go).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';

import { binaryLike, compress, type Compressor, compressors } from '../../../scripts/make-compressed-archives.js';
import { createDecompressor } from '../../../src/verify/archive/decompress.js';
import { createInflateGuard } from '../../../src/verify/archive/inflate-guard.js';

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/**
 * Zeros after the first MiB, and the most that may wait; bzip2 needs more zeros to outgrow one block
 * (at most about 46 MB of zeros each): the 128 MiB close the block that holds the first MiB's tail and
 * fill three more of 32 bytes each (`bzip2 -9`, five blocks in all), so all of them end in the last
 * 64 KiB chunk; a decoder that decodes what it is given at once would hold about 134 MB, more than
 * twice the bound.
 */
const cases: Record<Compressor, { zeros: number; most: number; options?: string[] }> = {
  gzip: { zeros: 64 << 20, most: 4 << 20 },
  zstd: { zeros: 64 << 20, most: 4 << 20 },
  // xz -0: a second or two for the zeros, which become a few KiB, 2 MiB per LZMA2 chunk.
  xz: { zeros: 64 << 20, most: 4 << 20, options: ['-0'] },
  bzip2: { zeros: 128 << 20, most: 48 << 20 },
};

describe('a stream that expands a few hundred times, read slowly', () => {
  for (const compressor of compressors) {
    const { zeros, most, options } = cases[compressor];
    test(`${compressor}: decoded as it is read, never more than ${most >> 20} MiB waiting`, async () => {
      const binary = Buffer.concat([binaryLike(1 << 20), Buffer.alloc(zeros)]);
      const compressed = compress(compressor, binary, options);
      const guard = createInflateGuard({ what: 'test' }, { maxBytes: 1 << 30, maxEntries: 10 });
      const stages = createDecompressor(compressor, guard);
      // Given as fast as it is taken: the whole input arrives and ends long before the output is read.
      let stream: NodeJS.ReadableStream = Readable.from(
        (function* () {
          for (let at = 0; at < compressed.length; at += 64 * 1024) yield compressed.subarray(at, at + 64 * 1024);
        })(),
      );
      for (const stage of stages) stream = stream.pipe(stage);
      const waiting = (): number => stages.reduce((sum, stage) => sum + stage.readableLength + stage.writableLength, 0);

      let waited = 0;
      const hash = createHash('sha256');
      let bytes = 0;
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        waited = Math.max(waited, waiting());
        bytes += chunk.length;
        hash.update(chunk);
        // A slow reader: a disk, or the tar extractor behind it.
        await new Promise((resolve) => setImmediate(resolve));
      }

      assert.equal(bytes, binary.length);
      assert.equal(hash.digest('hex'), sha256(binary));
      assert.ok(waited < most, `${waited} bytes waited between the stages`);
    });
  }
});
