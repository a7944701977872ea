/** `<bin> pre-upgrade`: exit codes from SIMD_PRE_UPGRADE_EXIT, call after call, logged to SIMD_PRE_UPGRADE_LOG. */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

import { cli, simFixture } from '../support/node-harness.js';

test('pre-upgrade exits with the configured codes in turn; the last one repeats', async (t) => {
  const fx = await simFixture(t);
  const log = path.join(fx.dir, 'pre-upgrade.log');
  const env = { SIMD_PRE_UPGRADE_EXIT: '31,30,0', SIMD_PRE_UPGRADE_LOG: log };
  const codes = [];
  for (let i = 0; i < 4; i++) codes.push((await cli(fx.bin('v2'), ['pre-upgrade'], env)).code);
  assert.deepEqual(codes, [31, 30, 0, 0]);
  assert.equal(await readFile(log, 'utf8'), 'v2 31\nv2 30\nv2 0\nv2 0\n');
  assert.equal((await cli(fx.bin('v2'), ['pre-upgrade'])).code, 0);
  const bad = await cli(fx.bin('v2'), ['pre-upgrade'], { SIMD_PRE_UPGRADE_EXIT: 'nope' });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /invalid SIMD_PRE_UPGRADE_EXIT/);
});
