/** upgrade-info.json (src/chain/upgrade-info.ts): the node's format, half-written files, what stands in its place. */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';

import { parseUpgradeInfo, readUpgradeInfo, serializePlan } from '../../src/chain/index.js';

describe('upgrade-info.json', () => {
  test('the node format parses and serialises back to the same bytes', () => {
    const text = '{"name":"v2","time":"0001-01-01T00:00:00Z","height":100,"info":"{\\"binaries\\":{}}"}';
    const parsed = parseUpgradeInfo(text);
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.plan, { name: 'v2', height: 100, info: '{"binaries":{}}', time: '0001-01-01T00:00:00Z' });
    assert.equal(serializePlan(parsed.plan), text);
    assert.equal(serializePlan({ name: 'v3', height: 5, info: '' }), '{"name":"v3","time":"0001-01-01T00:00:00Z","height":5}');
  });

  test('half-written files are marked incomplete; wrong content is not', () => {
    const half = parseUpgradeInfo('{"name":"v2","hei');
    assert.equal(half.ok, false);
    assert.equal(!half.ok && half.incomplete, true);
    assert.equal(!parseUpgradeInfo('').ok && (parseUpgradeInfo('') as { incomplete: boolean }).incomplete, true);
    const wrong = parseUpgradeInfo('{"name":"v2","height":-3}');
    assert.equal(wrong.ok, false);
    assert.equal(!wrong.ok && wrong.incomplete, false);
    assert.equal(parseUpgradeInfo('[1]').ok, false);
    assert.equal(parseUpgradeInfo('{"name":"v2","height":1.5}').ok, false);
  });
});

describe('reading upgrade-info.json', () => {
  test('missing is missing; a folder in its place is invalid, not a crash', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-plan-'));
    try {
      const file = path.join(dir, 'upgrade-info.json');
      assert.deepEqual(await readUpgradeInfo(file), { status: 'missing' });
      await fs.mkdir(file);
      assert.deepEqual(await readUpgradeInfo(file), { status: 'invalid', reason: 'it is a folder, not a regular file', incomplete: false, text: '' });
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
