/** The stored state follows the module spec's key layout (§2.5) byte for byte, under the store prefix `s/upgrade/`. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Plan } from 'cosmjs-types/cosmos/upgrade/v1beta1/upgrade.js';

import { govSchedule, openTestApp } from '../support/app-harness.js';

const key = (...parts: Array<number | string>) =>
  Buffer.concat([Buffer.from('s/upgrade/'), ...parts.map((p) => (typeof p === 'number' ? Buffer.from([p]) : Buffer.from(p)))]);
const be = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
};

test('0x0 plan (protobuf), 0x1+name done height, 0x2+module version, 0x3 protocol version, all big-endian', async (t) => {
  const h = await openTestApp(t);
  await h.block(govSchedule('v2', 4, 'info'));
  const raw = h.db.reader;
  const plan = Plan.decode((await raw.get(key(0x0))) as Buffer);
  assert.equal(plan.name, 'v2');
  assert.equal(plan.height, 4n);
  assert.equal(plan.info, 'info');
  assert.deepEqual(await raw.get(key(0x2, 'upgrade')), be(2));
  assert.deepEqual(await raw.get(key(0x2, 'bank')), be(4));
  assert.equal(await raw.get(key(0x3)), undefined);

  await h.blocksUntil(3);
  await h.block().catch(() => undefined);
  await h.reopen('v2');
  await h.block();
  assert.equal(await h.db.reader.get(key(0x0)), undefined);
  assert.deepEqual(await h.db.reader.get(key(0x1, 'v2')), be(4));
  assert.deepEqual(await h.db.reader.get(key(0x2, 'bank')), be(5));
  assert.deepEqual(await h.db.reader.get(key(0x2, 'newmod')), be(1));
  assert.deepEqual(await h.db.reader.get(key(0x3)), be(1));
});

test('module versions are all stored at genesis, the upgrade module at 2', async (t) => {
  const h = await openTestApp(t);
  await h.block();
  const versions = (await h.db.reader.range(key(0x2))).map(([k, v]) => [k.subarray(11).toString(), v.readBigUInt64BE(0)]);
  assert.deepEqual(versions, [
    ['auth', 5n],
    ['bank', 4n],
    ['consensus', 1n],
    ['gov', 5n],
    ['staking', 5n],
    ['upgrade', 2n],
  ]);
});
