/**
 * The data folder's tree, read while a node runs (a rehearsal reads it to size its copy): the node
 * replaces its signing state by renaming a temporary file at every vote, so a name listed a moment ago
 * is often gone when it is looked at. That is a file not to copy, never a failure (it was a raw ENOENT:
 * `chainvisor rehearse` ended in "unexpected error", exit 1, now and then).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { readTree } from '../../../src/home/backup/index.js';

test('readTree of a folder whose files are replaced by rename while it is read: what is gone is skipped', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-tree-'));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  await fs.mkdir(path.join(dir, 'application.db'));
  for (let i = 0; i < 100; i++) await fs.writeFile(path.join(dir, 'application.db', `${String(i).padStart(6, '0')}.ldb`), 'x');
  await fs.writeFile(path.join(dir, 'priv_validator_state.json'), '{"height":"0"}');
  let writing = true;
  // As the node writes its signing state: a temporary file beside it, renamed over it, again and again.
  const writer = (async () => {
    for (let n = 0; writing; n++) {
      const temp = path.join(dir, `.priv_validator_state.json.${process.pid}.tmp`);
      await fs.writeFile(temp, `{"height":"${n}"}`);
      await fs.rename(temp, path.join(dir, 'priv_validator_state.json'));
    }
  })();
  try {
    for (let i = 0; i < 200; i++) {
      const tree = await readTree(dir);
      assert.ok(tree.files.some((f) => f.rel === 'priv_validator_state.json'));
      assert.equal(tree.files.filter((f) => f.rel.startsWith('application.db')).length, 100);
    }
  } finally {
    writing = false;
    await writer;
  }
});
