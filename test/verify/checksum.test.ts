import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertChecksum, ChecksumMismatchError, parseChecksum } from '../../src/verify/index.js';

const hex64 = 'a'.repeat(64);

test('sha256, sha512, sha1 and md5, hex in any case', () => {
  assert.deepEqual(parseChecksum(`sha256:${hex64.toUpperCase()}`), { algo: 'sha256', hex: hex64 });
  assert.deepEqual(parseChecksum(`SHA512:${'b'.repeat(128)}`), { algo: 'sha512', hex: 'b'.repeat(128) });
  assert.equal(parseChecksum(`sha1:${'c'.repeat(40)}`).algo, 'sha1');
  assert.equal(parseChecksum(`md5:${'d'.repeat(32)}`).algo, 'md5');
});

test('a bare hex value: the algorithm is guessed from its length, as go-getter does', () => {
  assert.equal(parseChecksum(hex64).algo, 'sha256');
  assert.equal(parseChecksum('e'.repeat(128)).algo, 'sha512');
});

test('a wrong hex length is a clear error naming the expected length', () => {
  assert.throws(() => parseChecksum(`sha256:${'a'.repeat(63)}`), {
    code: 'CHAINVISOR_CHECKSUM_INVALID',
    message: /sha256 needs 64 hex digits, got 63/,
  });
});

test('unknown algorithms, non-hex digits and checksum files are refused', () => {
  assert.throws(() => parseChecksum(`crc32:${'a'.repeat(8)}`), { code: 'CHAINVISOR_CHECKSUM_INVALID', message: /unknown algorithm "crc32"/ });
  assert.throws(() => parseChecksum(`sha256:${'g'.repeat(64)}`), { code: 'CHAINVISOR_CHECKSUM_INVALID', message: /hexadecimal/ });
  assert.throws(() => parseChecksum('file:https://example.test/SHA256SUMS'), { code: 'CHAINVISOR_CHECKSUM_INVALID', message: /not supported/ });
});

test('a mismatch names both values, the URL and the size', () => {
  const expected = { algo: 'sha256' as const, hex: hex64 };
  const actual = { algo: 'sha256' as const, hex: 'f'.repeat(64) };
  assert.throws(
    () => assertChecksum({ what: 'linux/amd64 binary', url: 'https://example.test/simd?…' }, expected, actual, 1234),
    (error: unknown) => {
      assert.ok(error instanceof ChecksumMismatchError);
      assert.equal(error.code, 'CHAINVISOR_CHECKSUM_MISMATCH');
      assert.equal(error.expected, `sha256:${hex64}`);
      assert.equal(error.actual, `sha256:${'f'.repeat(64)}`);
      assert.match(error.message, /linux\/amd64 binary from https:\/\/example\.test\/simd\?…: expected sha256:a+, got sha256:f+ \(1234 bytes\)/);
      assert.match(error.hint ?? '', /do not switch binaries/);
      return true;
    },
  );
});
