import assert from 'node:assert/strict';
import { test } from 'node:test';

import { defaultBackoff, retryDelay } from '../../src/download/index.js';
import { parseRetryAfter } from '../../src/shared/net/index.js';

test('exponential backoff with jitter, capped', () => {
  const low = () => 0;
  const high = () => 1;
  assert.equal(retryDelay(1, defaultBackoff, undefined, low), 500);
  assert.equal(retryDelay(1, defaultBackoff, undefined, high), 1000);
  assert.equal(retryDelay(3, defaultBackoff, undefined, high), 4000);
  assert.equal(retryDelay(20, defaultBackoff, undefined, high), 30_000);
});

test('Retry-After is honoured when longer, and capped', () => {
  assert.equal(
    retryDelay(1, defaultBackoff, 5000, () => 0),
    5000,
  );
  assert.equal(
    retryDelay(1, defaultBackoff, 3_600_000, () => 0),
    60_000,
  );
});

test('a Retry-After that is negative, huge or in the past never waits past the cap, nor less than the backoff (issue #31)', () => {
  const now = Date.UTC(2026, 0, 1);
  for (const value of ['-5', '-1e9', '1e400', 'Infinity', 'Thu, 01 Jan 1970 00:00:00 GMT']) {
    const ms = parseRetryAfter(value, now);
    assert.ok(ms === undefined || (ms >= 0 && Number.isFinite(ms)), `${value}: ${ms}`);
    const delay = retryDelay(1, defaultBackoff, ms, () => 0);
    assert.ok(delay >= 500 && delay <= 60_000, `${value}: waits ${delay} ms`);
  }
  assert.equal(
    retryDelay(1, defaultBackoff, parseRetryAfter('9'.repeat(400), now), () => 0),
    60_000,
    'a number too large for a float',
  );
});
