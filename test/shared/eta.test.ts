/**
 * The block time and the upgrade's ETA (issue #35): a window of the last 500 blocks that one slow block
 * does not move, a new window after a reset or a height that goes back, and the sentence the status
 * and the chat messages show.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { aboutDuration, createBlockClock, describeEta, etaOf, etaProblem } from '../../src/shared/eta.js';

const t0 = Date.parse('2026-11-27T00:00:00Z');

test('the block time is the mean over the last 500 blocks, and one slow block barely moves it', () => {
  const clock = createBlockClock();
  assert.equal(clock.blockTime(), null, 'unknown before two heights');
  let at = t0;
  // 1000 blocks of 6 s, read every 10 blocks.
  for (let h = 0; h <= 1000; h += 10, at += 60_000) clock.observe(h, at);
  at -= 60_000;
  const before = clock.blockTime();
  assert.ok(before);
  assert.equal(before.basedOnBlocks, 500);
  assert.equal(before.seconds, 6);
  // One block of 60 s, then the next read.
  clock.observe(1001, at + 60_000);
  const after = clock.blockTime();
  assert.ok(after);
  assert.ok(Math.abs(after.seconds - 6) < 0.12, `one 60 s block moves the mean by less than 2 % (${after.seconds})`);
  // A last-two-reads estimate would have said 60 s: the window is what keeps it steady.
});

test('a lasting change of pace shows within the window; a reset or a height going back starts a new one', () => {
  const clock = createBlockClock(100);
  let at = t0;
  for (let h = 0; h <= 200; h++, at += 1000) clock.observe(h, at);
  for (let h = 201; h <= 300; h++, at += 2000) clock.observe(h, at);
  assert.equal(clock.blockTime()?.seconds, 1.99, 'the window holds the last 100 blocks: 99 of 2 s, one of 1 s');
  clock.observe(300, at + 5000);
  assert.equal(clock.blockTime()?.at, at - 2000, 'a height read again keeps its first reading');
  clock.observe(10, at);
  assert.equal(clock.blockTime(), null, 'a height that goes back starts again');
  clock.observe(11, at + 1000);
  clock.observe(12, at + 2000);
  assert.equal(clock.blockTime()?.basedOnBlocks, 2);
  clock.reset();
  assert.equal(clock.blockTime(), null);
});

test('the ETA counts from the newest reading and says it as the status shows it', () => {
  const bt = { seconds: 6.1, basedOnBlocks: 500, height: 1_232_678, at: Date.parse('2026-11-27T01:18:48Z') };
  const eta = etaOf(1_234_567, bt, bt.at);
  assert.ok(eta);
  assert.equal(eta.seconds, Math.round(1889 * 6.1));
  assert.equal(eta.at, '2026-11-27T04:30:50.900Z');
  assert.equal(eta.blockTimeSeconds, 6.1);
  assert.equal(eta.basedOnBlocks, 500);
  assert.equal(describeEta(eta), 'in about 3 h 12 min (around 04:30 UTC; block time 6.1 s over the last 500 blocks)');
  assert.equal(etaOf(1_234_567, null), null);
  const past = etaOf(100, { ...bt, height: 120 }, bt.at + 1000);
  assert.equal(past?.seconds, 0, 'a height reached is due now');
  assert.match(describeEta(past), /^due now/);
  const far = etaOf(2_000_000, bt, bt.at);
  assert.match(describeEta(far as NonNullable<typeof far>), /^in about 54 d 4 h \(around 2027-01-20 /);
  assert.equal(aboutDuration(45), '45 s');
  assert.equal(aboutDuration(700), '12 min');
  assert.equal(describeEta({ ...eta, blockTimeSeconds: 0.2, basedOnBlocks: 1 }).endsWith('block time 200 ms over the last block)'), true);
});

test('a height past what a date can hold has no estimate, and etaProblem says why; a reachable one has no problem', () => {
  const bt = { seconds: 0.5, basedOnBlocks: 500, height: 1000, at: Date.parse('2026-11-27T01:18:48Z') };
  assert.equal(etaOf(1e15, bt, bt.at), null);
  assert.equal(etaProblem(1e15, bt), 'height 1000000000000000 is too far ahead to be a date at 500 ms a block');
  assert.equal(etaOf(Number.MAX_SAFE_INTEGER, { ...bt, seconds: 6 }, bt.at), null);
  assert.ok(etaOf(2000, bt, bt.at));
  assert.equal(etaProblem(2000, bt), null);
  assert.equal(etaProblem(1e15, null), null, 'no block time: nothing to explain');
});
