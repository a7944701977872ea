import assert from 'node:assert/strict';
import { test } from 'node:test';

import { backoffMs } from '../../src/shared/backoff.js';

test('doubles per attempt from the base, up to the cap', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5].map((attempt) => backoffMs({ attempt, baseMs: 5000, maxMs: 60_000 })),
    [5000, 10_000, 20_000, 40_000, 60_000],
  );
  assert.equal(backoffMs({ attempt: 2000, baseMs: 5, maxMs: 250 }), 250, 'past a float: still the cap');
});

test('the jitter multiplies the capped wait by a factor in [min, min + spread)', () => {
  const step = { attempt: 20, baseMs: 1000, maxMs: 30_000, jitter: { min: 0.8, spread: 0.4 } };
  assert.equal(backoffMs({ ...step, random: () => 0 }), 24_000);
  assert.equal(backoffMs({ ...step, random: () => 0.5 }), 30_000);
  assert.equal(Math.round(backoffMs({ ...step, random: () => 1 })), 36_000);
  for (let i = 0; i < 100; i++) {
    const wait = backoffMs(step);
    assert.ok(wait >= 24_000 && wait < 36_000, `${wait}`);
  }
});
