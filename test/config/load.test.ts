/** The JSON config file at the boundary: one object of settings, every other shape a named problem (78). */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { loadConfig } from '../../src/config/index.js';

test('a config file that is not one JSON object is refused, naming the file; a __proto__ key is an unknown setting', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-config-'));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  const env = { DAEMON_HOME: dir, DAEMON_NAME: 'simd', UNSAFE_SKIP_BACKUP: 'true' };
  const file = path.join(dir, 'config.json');
  const problems = async (text: string) => {
    await fs.writeFile(file, text);
    try {
      loadConfig({ env, configFile: file });
    } catch (error) {
      assert.equal((error as { exitCode?: number }).exitCode, 78);
      return (error as { problems: { setting: string; value?: string; message: string }[] }).problems;
    }
    return [];
  };
  for (const text of ['[]', '["daemon_poll_interval"]', '"x"', 'null', '3']) {
    assert.deepEqual(await problems(text), [{ setting: 'config file', value: file, message: 'must hold a JSON object of settings' }], text);
  }
  const [notJson] = await problems('{"daemon_name": ');
  assert.match(notJson?.message ?? '', /^is not valid JSON: /);
  const [deep] = await problems('['.repeat(100) + ']'.repeat(100));
  assert.match(deep?.message ?? '', /^is not valid JSON: it is nested deeper than 64 levels/);
  const [proto] = await problems('{"__proto__": "1"}');
  assert.equal(proto?.setting, `__proto__ in ${file}`);
  assert.match(proto?.message ?? '', /unknown setting/);
  assert.deepEqual(await problems('{}'), []);
});
