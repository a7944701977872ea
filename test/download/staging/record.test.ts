/** staged.json read back: a damaged file or entry costs a re-check, never a binary taken for one chainvisor staged. */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { readStagedRecords, updateStagedRecord } from '../../../src/download/staging/record.js';
import { layoutFor } from '../../../src/home/layout/index.js';

test('entries of another shape are left out; any folder name is a key, __proto__ too', async (t) => {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-staged-'));
  t.after(() => fs.rm(root, { recursive: true, force: true }));
  const layout = layoutFor({ home: root, name: 'simd' });
  const file = path.join(layout.stateDir, 'staged.json');
  assert.deepEqual(await readStagedRecords(layout), {});
  const good = { name: 'v2', height: 20, info: '{}', stagedAt: '2026-11-27T08:00:00.000Z' };
  await updateStagedRecord(layout, 'upgrades/v2', good);
  assert.deepEqual(await readStagedRecords(layout), { 'upgrades/v2': good });

  await fs.writeFile(file, JSON.stringify({ 'upgrades/v2': good, 'upgrades/v3': { ...good, height: '30' }, 'upgrades/v4': null }));
  assert.deepEqual(await readStagedRecords(layout), { 'upgrades/v2': good });

  await fs.writeFile(file, `{"__proto__": ${JSON.stringify(good)}}`);
  const records = await readStagedRecords(layout);
  assert.deepEqual(Object.keys(records), ['__proto__']);
  assert.equal(Object.getPrototypeOf(records), Object.prototype, 'a key, not the prototype');

  for (const text of ['[]', 'null', 'not json', '['.repeat(100) + ']'.repeat(100)]) {
    await fs.writeFile(file, text);
    assert.deepEqual(await readStagedRecords(layout), {}, text.slice(0, 20));
  }
});
