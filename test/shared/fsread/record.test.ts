/** The one way chainvisor reads back its own records (src/shared/fsread/record.ts). */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import * as v from 'valibot';

import { duplicateKey, parseRecord, readRecord, recordFields } from '../../../src/shared/fsread/index.js';

const schema = v.strictObject({ name: v.string(), list: v.array(v.strictObject({ n: v.number() })) });

test('a record of exactly the shape is its value; anything else is damaged, with the reason', () => {
  assert.deepEqual(parseRecord('{"name": "a", "list": [{"n": 1}]}', schema), { status: 'ok', value: { name: 'a', list: [{ n: 1 }] } });
  const cases: [string, RegExp][] = [
    ['', /empty \(0 bytes\)/],
    [' \n', /only white space/],
    ['{"name": "a", "list": [', /not JSON/],
    ['{"name": "a", "list": [], "more": 1}', /not the shape chainvisor writes \(more: /],
    ['{"name": "a", "list": [{"n": "1"}]}', /not the shape chainvisor writes \(list\[0\]\.n: /],
    ['{"name": "a", "name": "b", "list": []}', /the key "name" twice/],
    [`{"name": "a", "list": ${'['.repeat(40)}${']'.repeat(40)}}`, /nested deeper than 16 levels/],
  ];
  for (const [text, reason] of cases) {
    const read = parseRecord(text, schema);
    assert.equal(read.status, 'damaged', text);
    assert.match(read.status === 'damaged' ? read.reason : '', reason);
  }
});

test('a key twice is found as JSON.parse reads keys, per object, never inside strings or across objects', () => {
  assert.equal(duplicateKey('{"a": 1, "\\u0061": 2}'), 'a');
  assert.equal(duplicateKey('{"x": {"a": 1}, "y": {"a": 2}}'), undefined);
  assert.equal(duplicateKey('[{"a": 1}, {"a": 2}]'), undefined);
  assert.equal(duplicateKey('{"a": "\\"a\\", {\\"a\\": 1}", "b": ["a", "a"]}'), undefined);
  assert.equal(duplicateKey('{"o": {"k": 1, "k": 2}}'), 'k');
  assert.equal(duplicateKey('{"__proto__": 1, "__proto__": 2}'), '__proto__');
  assert.equal(duplicateKey('{}'), undefined);
});

test('readRecord: missing, a FIFO, a folder', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'record-file-'));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  assert.deepEqual(await readRecord(path.join(dir, 'none.json'), schema), { status: 'missing' });
  spawnSync('mkfifo', [path.join(dir, 'fifo.json')]);
  assert.match(JSON.stringify(await readRecord(path.join(dir, 'fifo.json'), schema)), /"damaged".*FIFO/);
  await fs.mkdir(path.join(dir, 'folder.json'));
  assert.match(JSON.stringify(await readRecord(path.join(dir, 'folder.json'), schema)), /"damaged".*folder/);
});

test('the shared fields: a binary folder is genesis or upgrades/<name>, a path absolute', () => {
  for (const ok of ['genesis', 'upgrades/v2', 'upgrades/some%20spaces']) assert.ok(v.is(recordFields.binaryDir, ok), ok);
  for (const bad of ['../../evil', 'upgrades/..', 'upgrades/.', 'upgrades/a/b', 'upgrades/', '/bin', '']) assert.ok(!v.is(recordFields.binaryDir, bad), bad);
  assert.ok(v.is(recordFields.absolutePath, '/a/b'));
  assert.ok(!v.is(recordFields.absolutePath, 'a/b'));
  assert.ok(!v.is(recordFields.count, -1));
  assert.ok(!v.is(recordFields.count, 1.5));
});
