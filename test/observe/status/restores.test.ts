/** The last restore as `status` shows it, from a restores.json in any shape: read leniently, never a throw. */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { layoutFor } from '../../../src/home/layout/index.js';
import { readLastRestore } from '../../../src/observe/status/restores.js';

async function home(t: TestContext) {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-restores-'));
  t.after(() => fs.rm(root, { recursive: true, force: true }));
  const layout = layoutFor({ home: root, name: 'simd' });
  await fs.mkdir(layout.stateDir, { recursive: true });
  const file = path.join(layout.stateDir, 'restores.json');
  const read = async (text?: string) => {
    if (text !== undefined) await fs.writeFile(file, text);
    const problems: string[] = [];
    return { summary: await readLastRestore(layout, problems), problems };
  };
  return { file, read };
}

const written = {
  time: '2026-11-27T08:00:00.000Z',
  backup: '/h/backups/data-backup-1',
  dataDir: '/h/data',
  replaced: '/h/data.replaced-1',
  mode: 'copy',
  bytes: 10,
  files: 2,
  durationSeconds: 1.5,
  signing: { kept: 'backup', replacedHeight: '12', backupHeight: '10' },
  current: { from: 'upgrades/v2', to: 'genesis' },
};

test('the last entry of the list restore writes; none when the file is missing or the list empty', async (t) => {
  const { read } = await home(t);
  assert.deepEqual(await read(), { summary: null, problems: [] });
  assert.deepEqual(await read('[]'), { summary: null, problems: [] });
  const { summary, problems } = await read(JSON.stringify([{ ...written, backup: '/h/backups/older' }, written]));
  assert.deepEqual(problems, []);
  assert.deepEqual(summary, {
    time: written.time,
    backup: written.backup,
    replaced: written.replaced,
    durationSeconds: 1.5,
    signing: written.signing,
    current: written.current,
  });
});

test('an entry without what the summary needs is none; without the rest, the rest is at its default', async (t) => {
  const { read } = await home(t);
  assert.deepEqual(await read(JSON.stringify([{ ...written, backup: 7 }])), { summary: null, problems: [] });
  const { summary } = await read(JSON.stringify([{ time: written.time, backup: written.backup, signing: 'x', current: { from: 3 } }]));
  assert.deepEqual(summary, {
    time: written.time,
    backup: written.backup,
    replaced: '',
    durationSeconds: 0,
    signing: { kept: 'none', replacedHeight: null, backupHeight: null },
    current: { from: '', to: '' },
  });
});

test('a file that is not a JSON list is a problem naming the file, not a silent nothing', async (t) => {
  const { file, read } = await home(t);
  for (const text of ['{"time": "x", "backup": "y"}', 'not json', '['.repeat(100) + ']'.repeat(100)]) {
    const { summary, problems } = await read(text);
    assert.equal(summary, null, text.slice(0, 20));
    assert.equal(problems.length, 1, text.slice(0, 20));
    assert.ok(problems[0]?.startsWith(`${file}: `), problems[0]);
  }
});
