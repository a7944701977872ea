/**
 * The store keeps the state of past heights: a reader at height H sees every key as committed at H,
 * pruning removes only what no kept height needs, and a data folder written before history existed
 * starts its history at its last height.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { ClassicLevel } from 'classic-level';

import { type Database, openDatabase } from '../../src/store/db.js';
import type { BatchOp } from '../../src/store/kv.js';
import { type PruningOptions, pruningOptions } from '../../src/store/pruning.js';

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sim-history-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function open(t: TestContext, dir: string, pruning?: PruningOptions): Promise<Database> {
  const db = await openDatabase(dir, { pruning });
  t.after(() => db.close().catch(() => undefined));
  return db;
}

const put = (key: string | Buffer, value: string): BatchOp => ({ type: 'put', key: Buffer.from(key), value: Buffer.from(value) });
const del = (key: string | Buffer): BatchOp => ({ type: 'del', key: Buffer.from(key) });
const text = (value: Buffer | undefined) => value?.toString('utf8');
const rangeText = async (db: Database, height: number, prefix: string) =>
  (await db.readerAt(height).range(Buffer.from(prefix))).map(([k, v]) => `${k.toString('utf8')}=${v.toString('utf8')}`);

/** Commits heights 1..n, block h running `ops(h)` plus a block record and the height. */
async function commitBlocks(db: Database, from: number, to: number, ops: (h: number) => BatchOp[] = () => []): Promise<void> {
  for (let h = from; h <= to; h++) {
    await db.commit([...ops(h), put('c/height', String(h)), put(`b/${h}`, `block ${h}`)], { height: h, lastHeight: h - 1 });
  }
}

test('a reader at a past height sees each key as committed then, puts and deletes alike', async (t) => {
  const db = await open(t, await tempDir(t));
  await commitBlocks(db, 1, 6, (h) => {
    if (h === 1) return [put('s/m/a', 'a1'), put('s/m/b', 'b1'), put('s/n/x', 'x1')];
    if (h === 3) return [put('s/m/a', 'a3'), del('s/m/b'), put('s/m/c', 'c3')];
    if (h === 5) return [put('s/m/b', 'b5'), del('s/m/c')];
    return [];
  });
  assert.equal(db.earliestHeight(), 1);
  assert.equal(text(await db.readerAt(1).get(Buffer.from('s/m/a'))), 'a1');
  assert.equal(text(await db.readerAt(2).get(Buffer.from('s/m/a'))), 'a1');
  assert.equal(text(await db.readerAt(3).get(Buffer.from('s/m/a'))), 'a3');
  assert.equal(await db.readerAt(4).get(Buffer.from('s/m/b')), undefined);
  assert.equal(text(await db.readerAt(6).get(Buffer.from('s/m/b'))), 'b5');
  assert.equal(text(await db.readerAt(4).get(Buffer.from('c/height'))), '4');
  assert.deepEqual(await rangeText(db, 2, 's/m/'), ['s/m/a=a1', 's/m/b=b1']);
  assert.deepEqual(await rangeText(db, 4, 's/m/'), ['s/m/a=a3', 's/m/c=c3']);
  assert.deepEqual(await rangeText(db, 6, 's/m/'), ['s/m/a=a3', 's/m/b=b5']);
  // Block records are the block store's, the same at every height.
  assert.equal(text(await db.readerAt(2).get(Buffer.from('b/6'))), 'block 6');
  // The latest state is the plain keys, untouched by history.
  assert.equal(text(await db.reader.get(Buffer.from('s/m/a'))), 'a3');
  assert.deepEqual((await db.reader.range(Buffer.from('v/'))).length > 0, true);
});

test('keys holding 0x00 bytes and keys that prefix others keep apart', async (t) => {
  const db = await open(t, await tempDir(t));
  const k = (...bytes: number[]) => Buffer.concat([Buffer.from('s/u/'), Buffer.from(bytes)]);
  await commitBlocks(db, 1, 3, (h) => {
    if (h === 1) return [put(k(0x00), 'plan1'), put(k(0x00, 0x00), 'zz1'), put(k(0x01, 0x61), 'done1'), put(k(0x01), 'one1')];
    if (h === 2) return [put(k(0x00), 'plan2'), del(k(0x01))];
    return [];
  });
  assert.equal(text(await db.readerAt(1).get(k(0x00))), 'plan1');
  assert.equal(text(await db.readerAt(3).get(k(0x00))), 'plan2');
  assert.equal(text(await db.readerAt(3).get(k(0x00, 0x00))), 'zz1');
  assert.equal(await db.readerAt(2).get(k(0x01)), undefined);
  const at1 = (await db.readerAt(1).range(k(0x00))).map(([key, v]) => [key.subarray(4).toString('hex'), v.toString()]);
  assert.deepEqual(at1, [
    ['00', 'plan1'],
    ['0000', 'zz1'],
  ]);
  const all = (await db.readerAt(2).range(Buffer.from('s/u/'))).map(([key]) => key.subarray(4).toString('hex'));
  assert.deepEqual(all, ['00', '0000', '0161']);
});

test('pruning (custom, keep 2, every 10) keeps the states above h-1-2 and every key they need', async (t) => {
  const db = await open(t, await tempDir(t), pruningOptions('custom', 2, 10));
  await commitBlocks(db, 1, 9, (h) => (h === 1 ? [put('s/m/old', 'o1'), put('s/m/gone', 'g1')] : h === 4 ? [del('s/m/gone')] : [put('s/m/tick', String(h))]));
  assert.equal(db.earliestHeight(), 1);
  await commitBlocks(db, 10, 10, () => [put('s/m/tick', '10')]);
  assert.equal(db.earliestHeight(), 8);
  await commitBlocks(db, 11, 20, (h) => [put('s/m/tick', String(h))]);
  assert.equal(db.earliestHeight(), 18);
  for (const h of [18, 19, 20]) {
    assert.equal(text(await db.readerAt(h).get(Buffer.from('s/m/old'))), 'o1', `unchanged key at ${h}`);
    assert.equal(await db.readerAt(h).get(Buffer.from('s/m/gone')), undefined);
    assert.equal(text(await db.readerAt(h).get(Buffer.from('s/m/tick'))), String(h));
  }
  // Only what the kept heights need is left: per key, the newest version ≤ 17 (if a value) and those above:
  // s/m/old (1), s/m/tick and c/height (17, 18, 19, 20 each), s/m/gone nothing.
  assert.equal((await db.reader.range(Buffer.from('v/'))).length, 9);
  assert.equal(text(await db.reader.get(Buffer.from('s/m/old'))), 'o1');
});

test('`everything` keeps 2 recent states, `nothing` keeps all', async (t) => {
  const everything = await open(t, await tempDir(t), pruningOptions('everything'));
  await commitBlocks(everything, 1, 30, (h) => [put('s/m/tick', String(h))]);
  assert.equal(everything.earliestHeight(), 28);
  const nothing = await open(t, await tempDir(t), pruningOptions('nothing'));
  await commitBlocks(nothing, 1, 30, (h) => [put('s/m/tick', String(h))]);
  assert.equal(nothing.earliestHeight(), 1);
  assert.equal(text(await nothing.readerAt(1).get(Buffer.from('s/m/tick'))), '1');
});

test('a data folder written without history starts its history at its last committed height', async (t) => {
  const dir = await tempDir(t);
  const raw = new ClassicLevel<Buffer, Buffer>(path.join(dir, 'application.db'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await raw.batch([
    { type: 'put', key: Buffer.from('s/m/a'), value: Buffer.from('a-old') },
    { type: 'put', key: Buffer.from('c/height'), value: Buffer.from('7') },
  ]);
  await raw.close();
  const db = await open(t, dir);
  assert.equal(db.earliestHeight(), undefined);
  await commitBlocks(db, 8, 9, (h) => (h === 9 ? [put('s/m/a', 'a9')] : []));
  assert.equal(db.earliestHeight(), 7);
  assert.equal(text(await db.readerAt(7).get(Buffer.from('s/m/a'))), 'a-old');
  assert.equal(text(await db.readerAt(8).get(Buffer.from('s/m/a'))), 'a-old');
  assert.equal(text(await db.readerAt(9).get(Buffer.from('s/m/a'))), 'a9');
});

test('history survives a restart', async (t) => {
  const dir = await tempDir(t);
  const first = await openDatabase(dir, { pruning: pruningOptions('nothing') });
  await commitBlocks(first, 1, 3, (h) => [put('s/m/tick', String(h))]);
  await first.close();
  const db = await open(t, dir, pruningOptions('nothing'));
  assert.equal(db.earliestHeight(), 1);
  await commitBlocks(db, 4, 5, (h) => [put('s/m/tick', String(h))]);
  assert.equal(db.earliestHeight(), 1);
  assert.equal(text(await db.readerAt(2).get(Buffer.from('s/m/tick'))), '2');
  assert.equal(text(await db.readerAt(5).get(Buffer.from('s/m/tick'))), '5');
});
