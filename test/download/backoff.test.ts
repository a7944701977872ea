import assert from 'node:assert/strict';
import { test } from 'node:test';

import { defaultBackoff, parseRetryAfter, retryDelay } from '../../src/download/index.js';

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
  assert.equal(parseRetryAfter('120'), 120_000);
  assert.equal(parseRetryAfter(new Date(10_000 + 7000).toUTCString(), 10_000), 7000);
  assert.equal(parseRetryAfter('soon'), undefined);
  assert.equal(parseRetryAfter(undefined), undefined);
});
