import assert from 'node:assert/strict';
import { test } from 'node:test';

import { healthyRunMs, maxBackoffMs, RestartPolicy } from '../../../src/supervisor/restart/index.js';

const crash = { code: 3, signal: undefined };

test('off by default: a failing node is not restarted (cosmovisor behaviour)', () => {
  const policy = new RestartPolicy({ restartOnFailure: false, restartMax: 5, restartBackoff: 500 });
  const d = policy.decide(crash, 1000);
  assert.equal(d.restart, false);
});

test('on: at most MAX restarts with doubling waits, then the status is given back', () => {
  const policy = new RestartPolicy({ restartOnFailure: true, restartMax: 3, restartBackoff: 500 });
  const waits = [policy.decide(crash, 10), policy.decide(crash, 10), policy.decide(crash, 10)].map((d) => (d.restart ? d.delayMs : -1));
  assert.deepEqual(waits, [500, 1000, 2000]);
  const last = policy.decide(crash, 10);
  assert.equal(last.restart, false);
  assert.equal(last.restarts, 3);
});

test('a signal counts as a failure; an exit 0 is an orderly stop and never restarted', () => {
  const policy = new RestartPolicy({ restartOnFailure: true, restartMax: 3, restartBackoff: 500 });
  assert.equal(policy.decide({ code: undefined, signal: 'SIGKILL' }, 10).restart, true);
  assert.equal(policy.decide({ code: 0, signal: undefined }, 10).restart, false);
});

test('the count starts over after 10 minutes of running; waits are capped', () => {
  const policy = new RestartPolicy({ restartOnFailure: true, restartMax: 2, restartBackoff: 40_000 });
  policy.decide(crash, 10);
  const second = policy.decide(crash, 10);
  assert.equal(second.restart && second.delayMs, maxBackoffMs);
  assert.equal(policy.decide(crash, 10).restart, false);
  const again = policy.decide(crash, healthyRunMs);
  assert.equal(again.restart, true);
  assert.equal(again.restarts, 1);
});

test('a backoff set above the 60 s cap is waited as written, not cut to 60 s', () => {
  const policy = new RestartPolicy({ restartOnFailure: true, restartMax: 3, restartBackoff: 120_000 });
  const waits = [policy.decide(crash, 10), policy.decide(crash, 10)].map((d) => (d.restart ? d.delayMs : -1));
  assert.deepEqual(waits, [120_000, 120_000]);
});
