/** Scheduling and cancelling: every validation rule and its message, and the authority check. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { govAddress } from '../../src/core/accounts.js';
import { softwareUpgradeMsg } from '../../src/upgrade/msgs.js';
import { alice, govCancel, govSchedule, openTestApp, txOf, upgradeAt } from '../support/app-harness.js';
import { upgradeState } from '../support/state.js';

test('a valid plan is scheduled and can be read back with its name, height and info', async (t) => {
  const h = await openTestApp(t);
  const block = await h.block(govSchedule('v2', 50, '{"binaries":{}}'));
  assert.equal(block.results[0]?.code, 0, block.results[0]?.log);
  assert.deepEqual(await upgradeState(h.app.reader).plan(), { name: 'v2', height: 50, info: '{"binaries":{}}' });
});

test('invalid plans are refused with the module messages, nothing is stored', async (t) => {
  const h = await openTestApp(t);
  await h.blocksUntil(9);
  const cases: Array<[ReturnType<typeof govSchedule>, string]> = [
    [govSchedule('', 50), 'name cannot be empty'],
    [govSchedule('v2', 0), 'height must be greater than 0'],
    [govSchedule('v2', -5), 'height must be greater than 0'],
    [govSchedule('v2', 9), 'upgrade cannot be scheduled in the past'],
  ];
  const block = await h.block(...cases.map(([tx]) => tx));
  assert.equal(block.header.height, '10');
  cases.forEach(([, message], i) => {
    assert.equal(block.results[i]?.code, 18, `case ${i}`);
    assert.equal(block.results[i]?.codespace, 'sdk');
    assert.equal(block.results[i]?.log, `failed to execute message; message index: 0: ${message}`);
  });
  assert.equal(await upgradeState(h.app.reader).plan(), undefined);
});

test('a plan at the current height is allowed (and due at the next block)', async (t) => {
  const h = await openTestApp(t, { version: 'v2' });
  await h.blocksUntil(4);
  const block = await h.block(govSchedule('v2', 5));
  assert.equal(block.results[0]?.code, 0, block.results[0]?.log);
  await h.block();
  assert.equal(await upgradeState(h.app.reader).done('v2'), 6);
});

test('a new plan replaces the scheduled one: re-scheduling to another height or name', async (t) => {
  const h = await openTestApp(t);
  await h.block(govSchedule('v2', 50));
  await h.block(govSchedule('v2', 80));
  assert.deepEqual(await upgradeState(h.app.reader).plan(), { name: 'v2', height: 80, info: '' });
  await h.block(govSchedule('v2-alt', 30));
  assert.deepEqual(await upgradeState(h.app.reader).plan(), { name: 'v2-alt', height: 30, info: '' });
  // Delayed past its first height: the chain goes through 50 without halting.
  await h.block(govSchedule('v2', 60));
  await h.blocksUntil(55);
  assert.equal(h.app.lastHeight, 55);
});

test('an upgrade already done cannot be scheduled again', async (t) => {
  const h = await openTestApp(t);
  await upgradeAt(h, 'v2', 3, 'v2');
  assert.equal(await upgradeState(h.app.reader).done('v2'), 3);
  const block = await h.block(govSchedule('v2', 20));
  assert.equal(block.results[0]?.code, 18);
  assert.equal(block.results[0]?.log, 'failed to execute message; message index: 0: upgrade with name v2 has already been completed');
});

test('MsgCancelUpgrade removes the scheduled plan before its height; the chain passes the height', async (t) => {
  const h = await openTestApp(t);
  await h.block(govSchedule('v2', 10));
  await h.blocksUntil(5);
  const block = await h.block(govCancel());
  assert.equal(block.results[0]?.code, 0);
  assert.equal(await upgradeState(h.app.reader).plan(), undefined);
  await h.blocksUntil(15);
  assert.equal(h.logged(/NEEDED/).length, 0);
});

test('only the gov module account may execute the messages', async (t) => {
  const h = await openTestApp(t);
  const block = await h.block(
    txOf(alice, softwareUpgradeMsg(alice, { name: 'v2', height: 50, info: '' })),
    txOf(alice, { '@type': '/cosmos.upgrade.v1beta1.MsgCancelUpgrade', authority: alice }),
  );
  for (const result of block.results) {
    assert.equal(result.code, 6);
    assert.equal(result.codespace, 'upgrade');
    assert.equal(
      result.log,
      `failed to execute message; message index: 0: expected ${govAddress} got ${alice}: expected authority account as only signer for proposal message`,
    );
  }
  assert.equal(govAddress, 'cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn');
  assert.equal(await upgradeState(h.app.reader).plan(), undefined);
});
