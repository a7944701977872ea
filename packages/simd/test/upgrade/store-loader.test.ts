/**
 * The StoreLoader: store upgrades run once, in the batch of the upgrade block, only for the plan with
 * the binary's name, never for a skipped height, never again after a restart.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

import { appliedStoreUpgrades, mountedStores } from '../../src/store/stores.js';
import { ChainHalt } from '../../src/upgrade/halt.js';
import { govSchedule, openTestApp, upgradeAt } from '../support/app-harness.js';
import { upgradeState } from '../support/state.js';

const storeNames = async (h: { app: { reader: Parameters<typeof mountedStores>[0] } }) =>
  Object.fromEntries((await mountedStores(h.app.reader)).map((s) => [s.name, s.addedHeight]));

test('genesis mounts the stores of its modules at height 0', async (t) => {
  const h = await openTestApp(t);
  await h.block();
  assert.deepEqual(await storeNames(h), { auth: 0, bank: 0, consensus: 0, gov: 0, staking: 0, upgrade: 0 });
});

test('v2 adds its store at the upgrade height, once: a restart does not apply it again', async (t) => {
  const h = await openTestApp(t);
  await upgradeAt(h, 'v2', 4, 'v2');
  assert.equal((await storeNames(h)).newmod, 4);
  assert.deepEqual(await appliedStoreUpgrades(h.app.reader), { v2: 4 });
  assert.equal(h.logged(/applying store upgrades for "v2" at height 4 .*added=newmod/).length, 1);
  await h.blocksUntil(6);
  await h.reopen('v2');
  await h.blocksUntil(8);
  assert.equal(h.logged(/applying store upgrades/).length, 1);
  assert.equal((await storeNames(h)).newmod, 4);
});

test('store upgrades staged with a block that fails are not committed, and are applied by the next start', async (t) => {
  const h = await openTestApp(t);
  await h.block(govSchedule('v2', 3));
  await h.blocksUntil(2);
  await assert.rejects(h.block(), ChainHalt);
  await h.reopen('v2-broken');
  await assert.rejects(h.block(), ChainHalt);
  assert.equal((await storeNames(h)).newmod, undefined);
  await h.reopen('v2');
  await h.block();
  assert.equal((await storeNames(h)).newmod, 3);
  assert.equal(h.logged(/applying store upgrades/).length, 2);
});

test('only the plan with the matching name: a halt for another plan at that height does not add the store', async (t) => {
  const h = await openTestApp(t);
  await h.block(govSchedule('other', 3));
  await h.blocksUntil(2);
  await assert.rejects(h.block(), ChainHalt);
  await h.reopen('v2');
  const error = await h.block().catch((e: unknown) => e);
  assert.ok(error instanceof ChainHalt && error.kind === 'upgrade-needed');
  assert.equal((await storeNames(h)).newmod, undefined);
  assert.equal(h.logged(/applying store upgrades/).length, 0);
});

test('several plans sharing a height: only the one written in upgrade-info.json counts', async (t) => {
  const h = await openTestApp(t);
  await h.block(govSchedule('v2', 3));
  await h.block(govSchedule('v2-other', 3)); // replaces the plan: same height, another name
  await assert.rejects(h.block(), ChainHalt);
  await h.reopen('v2');
  await assert.rejects(h.block(), ChainHalt);
  assert.equal((await storeNames(h)).newmod, undefined);
  assert.deepEqual(await upgradeState(h.app.reader).plan(), { name: 'v2-other', height: 3, info: '' });
});

test('no store upgrade at a skip height, nor for an upgrade-info.json of another height', async (t) => {
  const h = await openTestApp(t);
  await h.block(govSchedule('v2', 3));
  await h.blocksUntil(2);
  await assert.rejects(h.block(), ChainHalt);
  await h.reopen('v2', { skipHeights: [3] });
  await h.blocksUntil(5);
  assert.equal((await storeNames(h)).newmod, undefined);
  assert.equal(h.logged(/SKIPPED at 3/).length, 1);

  await writeFile(path.join(h.dataDir, 'upgrade-info.json'), '{"name":"v2","time":"0001-01-01T00:00:00Z","height":3}');
  await h.reopen('genesis');
  await h.blocksUntil(6);
  assert.equal(h.logged(/applying store upgrades/).length, 0);
});
