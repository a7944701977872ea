import assert from 'node:assert/strict';
import { test } from 'node:test';

import { parseRetryAfter } from '../../../src/shared/net/index.js';

test('Retry-After: seconds or an HTTP date, in ms', () => {
  assert.equal(parseRetryAfter('120'), 120_000);
  assert.equal(parseRetryAfter(new Date(10_000 + 7000).toUTCString(), 10_000), 7000);
  assert.equal(parseRetryAfter('soon'), undefined);
  assert.equal(parseRetryAfter(undefined), undefined);
});

test("a chat service's seconds: fractions, JSON numbers, the first of repeated headers", () => {
  assert.equal(parseRetryAfter('0.6'), 600);
  assert.equal(parseRetryAfter(0.6), 600);
  assert.equal(parseRetryAfter(1.0001), 1001, 'rounded up: never asks again too early');
  assert.equal(parseRetryAfter(['2', '9']), 2000);
  assert.equal(parseRetryAfter(' 3 '), 3000);
});

test('nothing to obey: negative, empty, not a number, a date in the past waits nothing', () => {
  for (const value of ['-5', '', ' ', '1e3', 'Infinity', -1, Number.NaN, true, null, {}]) assert.equal(parseRetryAfter(value), undefined, String(value));
  assert.equal(parseRetryAfter('Thu, 01 Jan 1970 00:00:00 GMT', 10_000), 0);
  assert.equal(parseRetryAfter('9'.repeat(400)), Infinity, 'too large for a float: the caller clamps it');
});
