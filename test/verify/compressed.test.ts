/**
 * gzip, bzip2, xz and zstd, each as go-getter reads them: a tar inside or a bare binary, recognised
 * from the bytes (a misleading name changes nothing); a bomb stopped by the inflate guard's ratio, and
 * a large archive that is no bomb at CHAINVISOR_EXTRACT_MAX_BYTES; a stream cut short refused; the tar
 * entry rules unchanged.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, test, type TestContext } from 'node:test';

import { binaryLike, compress, compressedArchives, compressedBomb, compressors } from '../../scripts/make-compressed-archives.js';
import { fakeBinary, writeArchives } from '../../scripts/make-hostile-archives.js';
import { ChainvisorError } from '../../src/shared/errors/index.js';
import { detectFromHead, unpack } from '../../src/verify/index.js';
import { listTree, tempDir } from '../support/download-kit.js';

const limits = { maxBytes: 4 << 20, maxEntries: 100 };

async function unpackBuilt(t: TestContext, data: Buffer) {
  const dir = await tempDir(t);
  const file = path.join(dir, 'download');
  await fs.writeFile(file, data);
  const tree = path.join(dir, 'tree');
  return { tree, result: await unpack({ subject: { what: 'linux/amd64 binary' }, file, tree, name: 'simd', platform: 'linux/amd64', limits }) };
}

async function refused(t: TestContext, data: Buffer, code: string, within = limits): Promise<{ error: ChainvisorError; tree: string }> {
  const dir = await tempDir(t);
  const file = path.join(dir, 'download');
  await fs.writeFile(file, data);
  const tree = path.join(dir, 'tree');
  const error = await unpack({ subject: { what: 'linux/amd64 binary' }, file, tree, name: 'simd', limits: within }).then(
    () => assert.fail('accepted'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ChainvisorError, String(error));
  assert.equal(error.code, code, error.message);
  return { error, tree };
}

for (const compressor of compressors) {
  describe(compressor, () => {
    const built = compressedArchives(compressor, 'simd');
    const data = (key: string): Buffer => built[key]?.data as Buffer;
    const tarFormat = { gzip: 'tar.gz', bzip2: 'tar.bz2', xz: 'tar.xz', zstd: 'tar.zst' }[compressor];

    test('a tar inside: bin/simd and its libraries, executable', async (t) => {
      const { result, tree } = await unpackBuilt(t, data('tar'));
      assert.equal(result.format, tarFormat);
      assert.equal(result.from, 'bin/simd');
      assert.deepEqual(await listTree(tree), ['bin/', 'bin/simd', 'lib/', 'lib/libwasmvm.so', 'lib/libwasmvm.x86_64.so']);
      assert.equal(await fs.readFile(result.binary, 'utf8'), fakeBinary());
      assert.equal((await fs.stat(result.binary)).mode & 0o111, 0o111);
    });

    test('a bare compressed binary becomes bin/simd', async (t) => {
      const { result, tree } = await unpackBuilt(t, data('bare'));
      assert.equal(result.format, compressor);
      assert.deepEqual(await listTree(tree), ['bin/', 'bin/simd']);
      assert.equal(await fs.readFile(result.binary, 'utf8'), fakeBinary());
      assert.equal((await fs.stat(result.binary)).mode & 0o111, 0o111);
    });

    test('recognised from the magic bytes, not a .zip name', async (t) => {
      assert.equal(built.misnamed?.file, 'simd.zip');
      const detected = detectFromHead(data('misnamed'));
      assert.equal(detected.format === 'unknown' ? undefined : detected.row?.name, compressor);
      const dir = await tempDir(t);
      const files = await writeArchives(dir, { misnamed: built.misnamed });
      const tree = path.join(dir, 'tree');
      const result = await unpack({ subject: { what: 'any binary' }, file: files.misnamed as string, tree, name: 'simd', limits });
      assert.equal(result.format, tarFormat);
    });

    test('a bomb stops as soon as it expands more than 1000 times, under CHAINVISOR_EXTRACT_MAX_BYTES', async (t) => {
      const cap = { maxBytes: 128 << 20, maxEntries: 100 };
      const { error, tree } = await refused(t, compressedBomb(compressor).data, 'CHAINVISOR_ARCHIVE_TOO_LARGE', cap);
      assert.match(error.message, /expands more than 1000 times its compressed size/);
      // Nothing released: no bin/simd; what reached the disk stayed far under the cap (of the 256 MiB).
      await assert.rejects(fs.stat(path.join(tree, 'bin', 'simd')), { code: 'ENOENT' });
      const payload = await fs.stat(path.join(tree, 'payload')).catch(() => undefined);
      assert.ok(payload === undefined || payload.size <= cap.maxBytes / 2, `${payload?.size} bytes written`);
    });

    test('a large archive that is no bomb stops at CHAINVISOR_EXTRACT_MAX_BYTES', async (t) => {
      // xz at its fastest preset (-6 took 4 s on these 5 MiB): the size, not the ratio, is what is tested.
      const { error } = await refused(t, compress(compressor, binaryLike(5 << 20), ['-0']), 'CHAINVISOR_ARCHIVE_TOO_LARGE');
      assert.match(error.message, /more than 4194304 bytes/);
    });

    test('a stream cut in the middle is refused', async (t) => {
      const { error } = await refused(t, data('truncatedTar'), 'CHAINVISOR_ARCHIVE_INVALID');
      assert.match(error.message, /truncated/);
    });

    test('a stream missing only its end is refused, not installed as a partial binary', async (t) => {
      const { error, tree } = await refused(t, data('truncatedBare'), 'CHAINVISOR_ARCHIVE_INVALID');
      assert.match(error.message, new RegExp(`${compressor} data: .*truncated`));
      await assert.rejects(fs.stat(path.join(tree, 'bin', 'simd')), { code: 'ENOENT' });
    });

    test('the tar entry rules hold inside: path traversal refused', async (t) => {
      await refused(t, data('traversal'), 'CHAINVISOR_ARCHIVE_UNSAFE');
    });

    test('several streams one after another (cat a b, pxz, pbzip2, pzstd): the whole binary, on every Node', async (t) => {
      const whole = Buffer.concat([Buffer.from(fakeBinary()), Buffer.alloc(200_000, 7)]);
      const joined = Buffer.concat([compress(compressor, whole.subarray(0, 50_000)), compress(compressor, whole.subarray(50_000))]);
      const { result } = await unpackBuilt(t, joined);
      assert.deepEqual(await fs.readFile(result.binary), whole, 'every stream decompressed, in order');
    });

    test('decompressed data that is neither a tar nor an executable is refused', async (t) => {
      const { error } = await refused(t, data('notBinary'), 'CHAINVISOR_UNKNOWN_FORMAT');
      assert.match(error.message, new RegExp(`${compressor}-compressed data that is neither a tar nor an executable`));
    });
  });
}
