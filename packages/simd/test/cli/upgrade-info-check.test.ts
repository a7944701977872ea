/** `--upgrade-info` validation. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { upgradeInfoProblems } from '../../src/cli/upgrade-info-check.js';

const hex = 'a'.repeat(64);

test('valid: binaries JSON with checksums, or a URL', () => {
  assert.deepEqual(
    upgradeInfoProblems(
      JSON.stringify({
        binaries: { 'linux/amd64': `https://x.test/simd.tar.gz?checksum=sha256:${hex}`, any: `http://127.0.0.1:9/a.zip?checksum=sha512:${'b'.repeat(128)}` },
      }),
    ),
    [],
  );
  assert.deepEqual(upgradeInfoProblems('https://x.test/info.json'), []);
  assert.deepEqual(upgradeInfoProblems(`https://x.test/info.json?checksum=sha256:${hex}`), []);
});

test('every problem is reported', () => {
  assert.match(upgradeInfoProblems('')[0] ?? '', /blank/);
  assert.match(upgradeInfoProblems('{nope')[0] ?? '', /not valid JSON/);
  assert.match(upgradeInfoProblems('{"bins":{}}')[0] ?? '', /no "binaries" object/);
  assert.match(upgradeInfoProblems('{"binaries":{}}')[0] ?? '', /empty/);
  const problems = upgradeInfoProblems(
    JSON.stringify({
      binaries: {
        Linux_AMD64: `https://x.test/a?checksum=sha256:${hex}`,
        'linux/arm64': 'https://x.test/b',
        any: 'ftp://x.test/c?checksum=sha256:abc',
        'darwin/arm64': 'not a url',
      },
    }),
  );
  assert.equal(problems.length, 5, problems.join('\n'));
  assert.match(problems.join('\n'), /"Linux_AMD64": expected "<os>\/<arch>"/);
  assert.match(problems.join('\n'), /binaries.linux\/arm64: the URL has no checksum/);
  assert.match(problems.join('\n'), /unsupported URL scheme ftp/);
  assert.match(problems.join('\n'), /sha256 checksum must be 64 hex digits, got 3/);
  assert.match(problems.join('\n'), /"not a url" is not a valid URL/);
});
