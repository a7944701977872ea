import assert from 'node:assert/strict';
import { test } from 'node:test';

import { fakeBinary, gzip, tar, zip } from '../../../scripts/make-hostile-archives.js';
import { detectFromHead } from '../../../src/verify/index.js';

test('formats are detected from the bytes, not the name', () => {
  assert.equal(detectFromHead(tar([{ name: 'bin/simd', body: 'x' }])).format, 'tar');
  assert.equal(detectFromHead(gzip(tar([{ name: 'bin/simd', body: 'x' }]))).format, 'tar.gz');
  assert.equal(detectFromHead(zip([{ name: 'bin/simd', body: 'x' }])).format, 'zip');
  assert.equal(detectFromHead(gzip(Buffer.from(fakeBinary()))).format, 'gzip');
  assert.equal(detectFromHead(Buffer.from(fakeBinary())).format, 'executable');
});

test('executables by magic number', () => {
  assert.equal(detectFromHead(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0])).kind, 'ELF executable');
  assert.equal(detectFromHead(Buffer.from([0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1])).kind, 'Mach-O executable');
  assert.equal(detectFromHead(Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2])).kind, 'Mach-O universal executable');
  assert.equal(detectFromHead(Buffer.from('MZ\x90\x00')).kind, 'PE (Windows) executable');
});

test('what is not supported says what it is', () => {
  assert.deepEqual(detectFromHead(Buffer.from('<!DOCTYPE html><html>')), { format: 'unknown', kind: 'an HTML page' });
  assert.equal(detectFromHead(Buffer.alloc(0)).kind, 'the file is empty');
});

test('bzip2, xz and zstd by their magic bytes', () => {
  assert.equal(detectFromHead(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0, 0])).format, 'xz');
  assert.equal(detectFromHead(Buffer.from('BZh91AY&SY')).format, 'bzip2');
  assert.equal(detectFromHead(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x24, 0x00])).format, 'zstd');
  // "BZh" must be followed by a block size digit.
  assert.equal(detectFromHead(Buffer.from('BZhx')).format, 'unknown');
});
