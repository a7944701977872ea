import assert from 'node:assert/strict';
import { test } from 'node:test';

import { formatDuration, parseDuration } from '../../src/util/duration.js';

test('Go durations', () => {
  assert.equal(parseDuration('100ms'), 100);
  assert.equal(parseDuration('2s'), 2000);
  assert.equal(parseDuration('1m30s'), 90_000);
  assert.equal(parseDuration('1.5s'), 1500);
  assert.equal(parseDuration('0'), 0);
  assert.throws(() => parseDuration('5'), /invalid duration "5": expected a Go duration/);
  assert.throws(() => parseDuration('2 s'), /invalid duration/);
  assert.equal(formatDuration(1500), '1.5s');
  assert.equal(formatDuration(90_000), '1m30s');
  assert.equal(formatDuration(50), '50ms');
});
