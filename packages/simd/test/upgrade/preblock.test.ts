/** The pre-block hook: skip heights, missing handler, handler, early binary, downgrade. */
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

import { ChainHalt } from '../../src/upgrade/halt.js';
import { govSchedule, openTestApp, upgradeAt } from '../support/app-harness.js';
import { upgradeState } from '../support/state.js';

const info = '{"binaries":{"any":"https://example.invalid/v2.tar.gz?checksum=sha256:00"}}';

async function rejectsWithHalt(promise: Promise<unknown>, kind: string, message: string | RegExp): Promise<ChainHalt> {
  const error = await promise.then(
    () => assert.fail('expected the block to halt'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ChainHalt, String(error));
  assert.equal(error.kind, kind);
  if (typeof message === 'string') assert.equal(error.message, message);
  else assert.match(error.message, message);
  return error;
}

test('no handler: upgrade-info.json (0600, compact, the block height), NEEDED logged, nothing committed; again on restart', async (t) => {
  const h = await openTestApp(t);
  await h.block(govSchedule('v2', 5, info));
  await h.blocksUntil(4);
  await rejectsWithHalt(h.block(), 'upgrade-needed', `UPGRADE "v2" NEEDED at height: 5: ${info}`);
  assert.equal(h.app.lastHeight, 4);
  const file = path.join(h.dataDir, 'upgrade-info.json');
  assert.equal((await stat(file)).mode & 0o777, 0o600);
  assert.equal(await readFile(file, 'utf8'), JSON.stringify({ name: 'v2', time: '0001-01-01T00:00:00Z', height: 5, info }));
  assert.equal(h.logged(/ ERR UPGRADE "v2" NEEDED at height: 5: /).length, 1);

  await h.reopen('genesis');
  await rejectsWithHalt(h.block(), 'upgrade-needed', /NEEDED at height: 5/);
  assert.equal(h.app.lastHeight, 4);
  assert.deepEqual(await upgradeState(h.app.reader).plan(), { name: 'v2', height: 5, info });
});

test('upgrade-info.json omits an empty info and records the height of the block, not of the plan', async (t) => {
  const h = await openTestApp(t);
  await h.blocksUntil(3);
  await h.block(govSchedule('v2', 4)); // scheduled at height 4 for height 4: due at the next block, 5
  await rejectsWithHalt(h.block(), 'upgrade-needed', 'UPGRADE "v2" NEEDED at height: 4: ');
  assert.equal(await readFile(path.join(h.dataDir, 'upgrade-info.json'), 'utf8'), '{"name":"v2","time":"0001-01-01T00:00:00Z","height":5}');
});

test('handler registered: runs with the stored versions, stores its result, protocol version +1, plan cleared, done at the height', async (t) => {
  const h = await openTestApp(t);
  await h.block(govSchedule('v2', 5, info));
  await h.blocksUntil(4);
  await assert.rejects(h.block(), ChainHalt);
  await h.reopen('v2');
  const state = upgradeState(h.app.reader);
  assert.deepEqual(await state.versions(), { auth: 5, bank: 4, consensus: 1, gov: 5, staking: 5, upgrade: 2 });
  assert.equal(await state.protocol(), 0);
  const block = await h.block();
  assert.equal(block.header.height, '5');
  // Proposed before the upgrade ran: the header keeps app 0; the block's FinalizeBlock returns 1.
  assert.equal(block.header.version.app, '0');
  assert.equal(block.app_version, '1');
  assert.deepEqual(await state.versions(), { auth: 5, bank: 5, consensus: 1, gov: 5, newmod: 1, staking: 5, upgrade: 2 });
  assert.equal(await state.protocol(), 1);
  assert.equal(await state.plan(), undefined);
  assert.equal(await state.done('v2'), 5);
  assert.equal(h.logged(/applying upgrade "v2" at height: 5/).length, 1);
  assert.equal(h.logged(/migrating module bank from version 4 to version 5/).length, 1);
  assert.equal(h.logged(/adding a new module: newmod/).length, 1);
  assert.equal((await h.block()).header.version.app, '1');
  await h.blocksUntil(8);
});

test('a failing handler halts the node and commits nothing of the block', async (t) => {
  const h = await openTestApp(t);
  await h.block(govSchedule('v2', 3));
  await h.blocksUntil(2);
  await assert.rejects(h.block(), ChainHalt);
  await h.reopen('v2-broken');
  await rejectsWithHalt(h.block(), 'upgrade-failed', /upgrade "v2" failed at height 3: migration of module bank failed/);
  const state = upgradeState(h.app.reader);
  assert.equal(h.app.lastHeight, 2);
  assert.equal(await state.done('v2'), 0);
  assert.deepEqual(await state.plan(), { name: 'v2', height: 3, info: '' });
  assert.equal((await state.versions()).bank, 4);
});

test('skip height: SKIPPED logged, plan cleared, no done marker, the chain goes on', async (t) => {
  const h = await openTestApp(t, { skipHeights: [5] });
  await h.block(govSchedule('v2', 5, info));
  await h.blocksUntil(8);
  assert.deepEqual(
    h.logged(/SKIPPED/).map((l) => l.replace(/^\S+ /, '')),
    [`INF UPGRADE "v2" SKIPPED at 5: ${info} module=x/upgrade\n`],
  );
  const state = upgradeState(h.app.reader);
  assert.equal(await state.plan(), undefined);
  assert.equal(await state.done('v2'), 0);
});

test('a skip height only skips the plan due at that height', async (t) => {
  const h = await openTestApp(t, { skipHeights: [4] });
  await h.block(govSchedule('v2', 5));
  await h.blocksUntil(4);
  await assert.rejects(h.block(), ChainHalt);
});

test('binary updated before trigger: a binary with the handler of a plan not yet due refuses to run', async (t) => {
  const h = await openTestApp(t);
  await h.block(govSchedule('v2', 20));
  await h.blocksUntil(5);
  await h.reopen('v2');
  await rejectsWithHalt(h.block(), 'binary-early', 'BINARY UPDATED BEFORE TRIGGER! UPGRADE "v2" - in binary but not executed on chain. Downgrade your binary');
  assert.equal(h.app.lastHeight, 5);
  await h.reopen('genesis');
  await h.blocksUntil(8);
});

test('wrong app version: the last applied upgrade has no handler in this binary', async (t) => {
  const h = await openTestApp(t);
  await h.block(govSchedule('v2', 3));
  await h.blocksUntil(2);
  await assert.rejects(h.block(), ChainHalt);
  await h.reopen('v2');
  await h.blocksUntil(6);
  await h.reopen('genesis');
  await rejectsWithHalt(h.block(), 'wrong-app-version', 'wrong app version 1, upgrade handler is missing for v2 upgrade plan');
  assert.equal(h.logged(/ERR wrong app version 1/).length, 1);
  // v3 keeps the v2 handler, so it runs the chain.
  await h.reopen('v3');
  await h.blocksUntil(8);
});

test('v3 keeps the v2 handler: started at the v2 halt it applies v2; v2 then runs until the v3 halt, v3 applies v3', async (t) => {
  const h = await openTestApp(t);
  await upgradeAt(h, 'v2', 3, 'v3');
  await h.reopen('v2');
  await upgradeAt(h, 'v3', 6, 'v3');
  const state = upgradeState(h.app.reader);
  assert.equal(await state.done('v2'), 3);
  assert.equal(await state.done('v3'), 6);
  assert.equal(await state.protocol(), 2);
  assert.deepEqual(await state.versions(), { auth: 5, bank: 5, consensus: 1, feemarket: 1, gov: 5, newmod: 1, staking: 6, upgrade: 2 });
});
