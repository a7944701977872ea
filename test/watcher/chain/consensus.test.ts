import assert from 'node:assert/strict';
import { test } from 'node:test';

import { parseVoteShare } from '../../../src/watcher/chain/index.js';

test('a bit array gives each validator its vote and the share exactly, not the rounded 2 decimals', () => {
  const share = parseVoteShare('BA{11:_xxxxxxxxxx} 2000000/3000000 = 0.67');
  assert.ok(share);
  assert.deepEqual(share.voted, [false, ...Array<boolean>(10).fill(true)]);
  assert.equal(share.power, 2000000);
  assert.equal(share.total, 3000000);
  assert.equal(share.ratio, 2 / 3);
});

test('an empty round, a zero total and what is not a bit array', () => {
  assert.deepEqual(parseVoteShare('BA{3:___} 0/300 = 0.00')?.voted, [false, false, false]);
  assert.equal(parseVoteShare('BA{0:} 0/0 = 0.00')?.ratio, 0);
  assert.equal(parseVoteShare('nil-BitArray'), undefined);
  assert.equal(parseVoteShare('BA{3:xx} 1/2 = 0.50'), undefined, 'the length must match');
  assert.equal(parseVoteShare(undefined), undefined);
});
