/** The binary found in an archive must be a real one: an empty file is refused, never switched to. */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

import { fakeBinary, tar, zip } from '../../scripts/make-hostile-archives.js';
import { unpack } from '../../src/verify/index.js';
import { tempDir } from '../support/download-kit.js';

const limits = { maxBytes: 64 << 20, maxEntries: 100 };

for (const [kind, body] of [
  [
    'tar with an empty bin/simd',
    tar([
      { name: 'bin/simd', body: '', mode: 0o755 },
      { name: 'README', body: 'x' },
    ]),
  ],
  ['tar with an empty simd at its root', tar([{ name: 'simd', body: '', mode: 0o755 }])],
  [
    'zip with an empty bin/simd',
    zip([
      { name: 'bin/simd', body: '' },
      { name: 'lib/libwasmvm.so', body: fakeBinary() },
    ]),
  ],
] as const) {
  test(`${kind}: refused as an empty binary (79)`, async (t) => {
    const dir = await tempDir(t);
    const file = path.join(dir, 'download');
    await fs.writeFile(file, body);
    await assert.rejects(
      unpack({ subject: { what: 'linux/amd64 binary', url: 'https://example.invalid/simd.tar' }, file, tree: path.join(dir, 'tree'), name: 'simd', limits }),
      (error: Error & { code?: string; exitCode?: number; hint?: string }) => {
        assert.equal(error.code, 'CHAINVISOR_BINARY_EMPTY');
        assert.equal(error.exitCode, 79);
        assert.match(error.message, /simd in the linux\/amd64 binary from https:\/\/example\.invalid\/simd\.tar is empty \(0 bytes\)/);
        assert.match(error.hint ?? '', /publish a fixed archive/);
        return true;
      },
    );
  });
}
