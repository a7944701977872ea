/** Blocks: one batch per block, headers chained, transactions checked before the mempool. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { getBlock } from '../../src/chain/block.js';
import { govAddress, keyAddress } from '../../src/core/accounts.js';
import { cancelUpgradeMsg, softwareUpgradeMsg } from '../../src/upgrade/msgs.js';
import { alice, openTestApp, signedBytes, type TestTx, txOf } from '../support/app-harness.js';

test('each block is committed with its header chained to the previous one', async (t) => {
  const h = await openTestApp(t);
  await h.blocksUntil(3);
  const [b1, b2, b3] = await Promise.all([1, 2, 3].map((n) => getBlock(h.app.reader, n)));
  assert.equal(b1?.header.last_block_id.hash, '');
  assert.deepEqual(b2?.header.last_block_id, b1?.block_id);
  assert.deepEqual(b3?.header.last_block_id, b2?.block_id);
  assert.match(b3?.header.time ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
  assert.match(b3?.header.app_hash ?? '', /^[0-9A-F]{64}$/);
  assert.equal(b3?.header.chain_id, 'sim-1');
  assert.equal(b3?.num_txs, '0');
});

test('the store continues from the last committed height after a reopen', async (t) => {
  const h = await openTestApp(t);
  await h.blocksUntil(5);
  await h.reopen('genesis');
  assert.equal(h.app.lastHeight, 5);
  const block = await h.block();
  assert.equal(block.header.height, '6');
});

test('checkTx refuses undecodable transactions, wrong signer counts, unknown accounts and wrong sequences', async (t) => {
  const h = await openTestApp(t);
  await h.block();
  const check = async (tx: TestTx) => h.app.checkTx(await signedBytes(h.app, tx));
  const bank = await check(txOf(alice, { '@type': '/cosmos.bank.v1beta1.MsgSend' }));
  assert.deepEqual([bank.code, bank.codespace, bank.log], [2, 'sdk', 'unable to resolve type URL /cosmos.bank.v1beta1.MsgSend: tx parse error']);
  const notProto = await h.app.checkTx(Buffer.from('not json'));
  assert.deepEqual([notProto.code, notProto.log], [2, 'expected 2 wire type, got 6: tx parse error']);
  // Two signers (alice and bob), one signer info.
  const twoSigners = await check(txOf(alice, softwareUpgradeMsg(alice, { name: 'v2', height: 9, info: '' }), cancelUpgradeMsg(keyAddress('bob'))));
  assert.deepEqual([twoSigners.code, twoSigners.log], [4, 'invalid number of signer;  expected: 2, got 1: unauthorized']);
  const unknown = 'cosmos1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqnrql8a';
  assert.match((await check(txOf(unknown, softwareUpgradeMsg(unknown, { name: 'v2', height: 9, info: '' })))).log, /not found/);
  const ok = await check(txOf(alice, softwareUpgradeMsg(alice, { name: 'v2', height: 9, info: '' })));
  assert.equal(ok.code, 0);
  assert.equal(ok.gasWanted, '200000');
  // The check state has moved alice to sequence 1: the same sequence again is refused.
  const again = await check(txOf(alice, cancelUpgradeMsg(alice)));
  assert.deepEqual([again.code, again.codespace, again.log], [32, 'sdk', 'account sequence mismatch, expected 1, got 0: incorrect account sequence']);
  const gov = await check(txOf(govAddress, softwareUpgradeMsg(govAddress, { name: 'v2', height: 9, info: '' })));
  assert.match(gov.log, /module account cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn cannot sign transactions/);
});
