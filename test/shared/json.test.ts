/** The one way JSON chainvisor did not write is read: bounded, then shape-checked (src/shared/json.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import * as v from 'valibot';

import { checkShape, nestingDepth, parseJson, parseJsonValue } from '../../src/shared/json.js';

const point = v.strictObject({ height: v.pipe(v.string(), v.regex(/^\d+$/)), round: v.number() });

test('a text that matches the schema is its value', () => {
  assert.deepEqual(parseJson('{"height":"12","round":0}', point), { ok: true, value: { height: '12', round: 0 } });
});

test('a value of another shape is refused, naming where', () => {
  const wrong = parseJson('{"height":12,"round":0}', point);
  assert.equal(wrong.ok, false);
  assert.match(!wrong.ok ? wrong.reason : '', /^height: .*string/i);
  const extra = parseJson('{"height":"1","round":0,"more":1}', point);
  assert.equal(extra.ok, false);
  for (const text of ['{}', '[]', 'null', '5', '"x"']) assert.equal(parseJson(text, point).ok, false, text);
});

test('not JSON is refused with the parser reason', () => {
  const r = parseJsonValue('{"a":');
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.reason : '', /not JSON/);
});

test('nesting past the bound is refused before JSON.parse would recurse into it', () => {
  const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
  const r = parseJsonValue(deep, { maxDepth: 64 });
  assert.deepEqual(r, { ok: false, reason: 'it is nested deeper than 64 levels' });
  assert.equal(parseJsonValue(`${'['.repeat(64)}${']'.repeat(64)}`, { maxDepth: 64 }).ok, true);
});

test('brackets inside strings, escaped quotes included, do not count as nesting', () => {
  assert.equal(nestingDepth('{"a":"[[[[\\"[[[","b":[1]}'), 2);
  assert.equal(nestingDepth('"\\\\"'), 0);
});

test('a text over the size bound is refused unparsed', () => {
  const r = parseJsonValue(`"${'x'.repeat(100)}"`, { maxBytes: 50 });
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.reason : '', /too large \(102 characters, over the limit of 50\)/);
});

test('checkShape checks a value already parsed', () => {
  assert.equal(checkShape({ height: '1', round: 0 }, point).ok, true);
  assert.equal(checkShape({ height: '1' }, point).ok, false);
});

test('more objects and arrays than the bound is refused before parsing, when the caller bounds them', () => {
  const wide = `[${Array.from({ length: 1001 }, () => '{}').join(',')}]`;
  assert.deepEqual(parseJsonValue(wide, { maxContainers: 1000 }), { ok: false, reason: 'it holds more than 1000 objects and arrays' });
  assert.equal(parseJsonValue(wide, { maxContainers: 1002 }).ok, true);
  assert.equal(parseJsonValue(wide).ok, true, 'not bounded unless asked');
  assert.equal(parseJsonValue('["[[[[", {"a": "{{{"}]', { maxContainers: 2 }).ok, true, 'brackets in strings do not count');
});

test('more values than the bound (one array of millions counts them all) is refused before parsing, when the caller bounds them', () => {
  const flat = `[${'0,'.repeat(1000)}0]`;
  assert.deepEqual(parseJsonValue(flat, { maxEntries: 1000 }), { ok: false, reason: 'it holds more than 1000 values' });
  assert.equal(parseJsonValue(flat, { maxEntries: 1002 }).ok, true);
  assert.equal(parseJsonValue(flat).ok, true, 'not bounded unless asked');
  assert.equal(parseJsonValue('[",,,,,,", 1]', { maxEntries: 3 }).ok, true, 'commas in strings do not count');
});

test('a reason quotes what the text holds only clipped, with control characters escaped', () => {
  const r = parseJson(JSON.stringify({ height: `\u001b[31m${'x'.repeat(5000)}`, round: 0 }), v.strictObject({ height: v.literal('1'), round: v.number() }));
  assert.equal(r.ok, false);
  const reason = !r.ok ? r.reason : '';
  assert.ok(reason.length < 400, reason);
  assert.ok(!reason.includes('\u001b'), reason);
  assert.match(reason, /\\u\{1b\}/);
});
