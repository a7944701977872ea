/** The `pruning` setting resolves as a Cosmos SDK node's does, with its defaults and its refusals. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { pruneHeight, pruningOptions } from '../../src/store/pruning.js';

test('default keeps 362880 states every 10 blocks, everything 2, nothing all; custom takes its numbers', () => {
  assert.deepEqual(pruningOptions('default', 5, 5), { strategy: 'default', keepRecent: 362880, interval: 10 });
  assert.deepEqual(pruningOptions('EVERYTHING'), { strategy: 'everything', keepRecent: 2, interval: 10 });
  assert.deepEqual(pruningOptions('nothing'), { strategy: 'nothing', keepRecent: 0, interval: 0 });
  assert.deepEqual(pruningOptions('custom', 100, 15), { strategy: 'custom', keepRecent: 100, interval: 15 });
});

test('custom values below the SDK minimums and unknown strategies are refused with the SDK messages', () => {
  assert.throws(() => pruningOptions('custom', 2, 0), {
    message: `invalid custom pruning options: 'pruning-interval' must not be 0. If you want to disable pruning, select pruning = "nothing"`,
  });
  assert.throws(() => pruningOptions('custom', 2, 9), {
    message: `invalid custom pruning options: 'pruning-interval' must not be less than 10. For the most aggressive pruning, select pruning = "everything"`,
  });
  assert.throws(() => pruningOptions('custom', 1, 10), {
    message: `invalid custom pruning options: 'pruning-keep-recent' must not be less than 2. For the most aggressive pruning, select pruning = "everything"`,
  });
  assert.throws(() => pruningOptions('Sometimes'), { message: 'unknown pruning strategy sometimes' });
});

test('states up to h-1-keep are pruned at multiples of the interval above keep', () => {
  const custom = pruningOptions('custom', 2, 10);
  assert.equal(pruneHeight(custom, 9), 0);
  assert.equal(pruneHeight(custom, 10), 7);
  assert.equal(pruneHeight(custom, 15), 0);
  assert.equal(pruneHeight(pruningOptions('custom', 20, 10), 20), 0);
  assert.equal(pruneHeight(pruningOptions('nothing'), 10), 0);
  assert.equal(pruneHeight(pruningOptions('default'), 362890), 9);
});
