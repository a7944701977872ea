/** A download's source as a plan writes it: go-getter's checksum parameter, and credentials in the URL. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { parseSource } from '../../src/download/index.js';

const hex = 'ab'.repeat(32);

test('checksum= is taken out of the URL; the rest of the query is kept as written', () => {
  const source = parseSource(`https://dl.example.com/simd?a=1%20b&checksum=sha256:${hex}&z=+`, { mustHaveChecksum: true, what: 'linux/amd64 binary' });
  assert.equal(source.url.href, 'https://dl.example.com/simd?a=1%20b&z=+');
  assert.deepEqual(source.checksum, { algo: 'sha256', hex });
  assert.equal(source.shown, 'https://dl.example.com/simd?…');
});

test('a URL without a checksum is refused while checksums are required, with a hint', () => {
  assert.throws(() => parseSource('https://dl.example.com/simd', { mustHaveChecksum: true, what: 'linux/amd64 binary' }), {
    code: 'CHAINVISOR_CHECKSUM_REQUIRED',
    message: /linux\/amd64 binary has no checksum/,
    hint: /checksum=sha256:<hex>.*DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM=false/,
  });
  assert.equal(parseSource('https://dl.example.com/simd', { mustHaveChecksum: false, what: 'x' }).checksum, undefined);
});

test('bad checksums, two checksums and unsupported schemes are clear errors', () => {
  const opts = { mustHaveChecksum: true, what: 'linux/amd64 binary' };
  assert.throws(() => parseSource('https://h/simd?checksum=sha256:abc', opts), { code: 'CHAINVISOR_CHECKSUM_INVALID', message: /needs 64 hex digits, got 3/ });
  assert.throws(() => parseSource(`https://h/simd?checksum=sha256:${hex}&checksum=md5:${'0'.repeat(32)}`, opts), {
    code: 'CHAINVISOR_INFO_INVALID',
    message: /2 checksum parameters/,
  });
  assert.throws(() => parseSource(`s3://bucket/simd?checksum=sha256:${hex}`, opts), { code: 'CHAINVISOR_INFO_INVALID', message: /unsupported scheme s3/ });
});

test('credentials become an Authorization header and leave the URL', () => {
  const source = parseSource(`https://bob:p%40ss@h/simd?checksum=sha256:${hex}`, { mustHaveChecksum: true, what: 'x' });
  assert.equal(source.url.href, 'https://h/simd');
  assert.equal(source.authorization, `Basic ${Buffer.from('bob:p@ss').toString('base64')}`);
  assert.equal(source.shown, 'https://***@h/simd');
});

test('credentials with a % that starts no escape make the Info invalid, not a URIError (issue #31)', () => {
  assert.throws(
    () => parseSource(`https://bob:100%zz@h/simd?checksum=sha256:${hex}`, { mustHaveChecksum: true, what: 'linux/amd64 binary' }),
    (error: Error & { code?: string }) => {
      assert.equal(error.code, 'CHAINVISOR_INFO_INVALID');
      assert.match(
        error.message,
        /the linux\/amd64 binary URL https:\/\/\*\*\*@h\/simd: the user or password in the URL has a % that does not start an escape/,
      );
      assert.doesNotMatch(error.message, /100%zz/);
      return true;
    },
  );
});
