import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import {
  haltArgs,
  operatorHaltHeight,
  parseQueue,
  parseUpgradeList,
  reachedHeight,
  readUpgradeFile,
  serializeQueue,
} from '../../../src/watcher/manual/index.js';

test('--upgrade-list: comma-separated name:path:height items, repeated flags too', () => {
  assert.deepEqual(parseUpgradeList(['v2:/opt/v2/simd:100,v3:/opt/v3/simd:200', 'v4:/opt/v4:simd:300']), [
    { name: 'v2', source: '/opt/v2/simd', height: 100, info: '' },
    { name: 'v3', source: '/opt/v3/simd', height: 200, info: '' },
    { name: 'v4', source: '/opt/v4:simd', height: 300, info: '' },
  ]);
});

test('--upgrade-list: every bad item is named in one error', () => {
  assert.throws(
    () => parseUpgradeList(['v2:/a:abc,v3-no-height,:/b:5']),
    (e: Error & { code?: string }) =>
      e.code === 'CHAINVISOR_USAGE' &&
      /item 1 .*abc/.test(e.message) &&
      /item 2 .*name:path:height/.test(e.message) &&
      /item 3 .*name is empty/.test(e.message),
  );
});

test('--upgrade-file: a headerless CSV (cosmovisor v1.7) or a JSON array of plans', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'batch-parse-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const csv = path.join(dir, 'u.csv');
  await writeFile(csv, 'v2,/opt/v2/simd,100\n\n"v3", /opt/v3/simd, 200\n');
  assert.deepEqual(await readUpgradeFile(csv), [
    { name: 'v2', source: '/opt/v2/simd', height: 100, info: '' },
    { name: 'v3', source: '/opt/v3/simd', height: 200, info: '' },
  ]);
  const json = path.join(dir, 'u.json');
  await writeFile(
    json,
    JSON.stringify([
      { name: 'v3', height: 200, info: 'x' },
      { name: 'v2', height: 100 },
    ]),
  );
  assert.deepEqual(await readUpgradeFile(json), [
    { name: 'v2', height: 100, info: '' },
    { name: 'v3', height: 200, info: 'x' },
  ]);
  const bad = path.join(dir, 'bad.csv');
  await writeFile(bad, 'v2,/opt/v2/simd\n');
  await assert.rejects(readUpgradeFile(bad), /line 1: expected 3 fields/);
  await assert.rejects(readUpgradeFile(path.join(dir, 'none.csv')), (e: Error & { code?: string }) => e.code === 'CHAINVISOR_BATCH_FILE_UNREADABLE');
});

test('the batch file: sorted by height on read and write; duplicate names or heights are invalid', () => {
  const read = parseQueue('[{"name":"b","height":20},{"name":"a","height":10,"info":"i"}]');
  assert.ok(read.ok);
  assert.deepEqual(
    read.plans.map((p) => p.name),
    ['a', 'b'],
  );
  assert.deepEqual(JSON.parse(serializeQueue(read.plans)), [
    { name: 'a', height: 10, info: 'i' },
    { name: 'b', height: 20 },
  ]);
  const twice = parseQueue('[{"name":"a","height":10},{"name":"b","height":10},{"name":"A","height":30}]');
  assert.ok(!twice.ok);
  assert.match(twice.reason, /two upgrades at height 10/);
  assert.match(twice.reason, /name "A" is used twice/);
  assert.ok(!parseQueue('{"name":"a","height":1}').ok);
  assert.ok(!parseQueue('[{"name":"a","height":0}]').ok);
  assert.deepEqual(parseQueue(''), { ok: true, plans: [] });
});

test("--halt-height: added to start, the lower of the operator's and the queued one wins, never twice", () => {
  assert.deepEqual(haltArgs(['start', '--home', 'h'], 50), { args: ['start', '--home', 'h', '--halt-height=50'], haltHeight: 50, owner: 'manual' });
  assert.deepEqual(haltArgs(['start', '--halt-height', '80'], 50), { args: ['start', '--halt-height=50'], haltHeight: 50, owner: 'manual' });
  assert.deepEqual(haltArgs(['start', '--halt-height=30'], 50), { args: ['start', '--halt-height=30'], haltHeight: 30, owner: 'operator' });
  assert.deepEqual(haltArgs(['start'], 0), { args: ['start'], haltHeight: 0, owner: 'none' });
  assert.deepEqual(haltArgs(['version'], 50).owner, 'none');
  assert.equal(operatorHaltHeight(['start', '--halt-height=7']), 7);
});

test('the height at an exit is extrapolated from the observed block rate', () => {
  assert.equal(reachedHeight(undefined, { height: 7, at: 1000 }, 5000), 7);
  // 10 blocks in 500 ms (50 ms a block), 300 ms since the last sample: about 6 more.
  assert.equal(reachedHeight({ height: 10, at: 0 }, { height: 20, at: 500 }, 800), 26);
});
