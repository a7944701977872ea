/** Blocks: one batch per block, headers chained, transactions checked before the mempool. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getBlock } from '../../src/chain/block.js';
import { encodeTx } from '../../src/chain/tx.js';
import { softwareUpgradeMsg } from '../../src/upgrade/msgs.js';
import { govAddress } from '../../src/chain/accounts.js';
import { alice, openTestApp, txOf } from '../support/app-harness.js';

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

test('checkTx refuses unknown messages, wrong signers and unknown accounts', async (t) => {
  const h = await openTestApp(t);
  await h.block();
  const check = (tx: Parameters<typeof encodeTx>[0]) => h.app.checkTx(encodeTx(tx));
  assert.equal((await check(txOf(alice, { '@type': '/cosmos.bank.v1beta1.MsgSend' }))).code, 12);
  const wrongSigner = await check(txOf(alice, softwareUpgradeMsg('cosmos1other', { name: 'v2', height: 9, info: '' })));
  assert.equal(wrongSigner.code, 4);
  const unknown = 'cosmos1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqnrql8a';
  assert.match((await check(txOf(unknown, softwareUpgradeMsg(unknown, { name: 'v2', height: 9, info: '' })))).log, /not found/);
  assert.equal((await check(txOf(alice, softwareUpgradeMsg(alice, { name: 'v2', height: 9, info: '' })))).code, 0);
  assert.equal((await h.app.checkTx(Buffer.from('not json'))).code, 2);
  const gov = await check(txOf(govAddress, softwareUpgradeMsg(govAddress, { name: 'v2', height: 9, info: '' })));
  assert.match(gov.log, /module account cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn cannot sign transactions/);
});
