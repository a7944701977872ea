/**
 * A binary the operator installs with `add-upgrade --force` in place of one chainvisor staged (for a
 * plan or a proposal, issue #45) is the operator's from then on: chainvisor's record of the staging is
 * gone, so the halt never takes it for a staged binary of another Info and moves it aside. The same
 * for a manual upgrade queued with `--upgrade-height`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';

import { loadConfig } from '../../src/config/index.js';
import { readStagedRecords, updateStagedRecord } from '../../src/download/staging/index.js';
import { layoutFor } from '../../src/home/layout/index.js';
import { makeHome, type TestHome } from '../support/home.js';

let t: TestHome;
beforeEach(async () => {
  t = await makeHome();
});
afterEach(async () => {
  await t.cleanup();
});

async function staged(home: string) {
  const layout = layoutFor(loadConfig({ env: { DAEMON_HOME: home, DAEMON_NAME: 'simd' } }).config);
  return { layout, records: async () => readStagedRecords(layout) };
}

for (const height of [undefined, '1000']) {
  test(`add-upgrade --force${height === undefined ? '' : ' --upgrade-height'} over a staged binary: the staging's record is gone`, async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const { layout, records } = await staged(t.home);
    const dir = path.join(layout.upgradesDir, 'v2', 'bin');
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, 'simd'), '#!/bin/sh\necho staged\n', { mode: 0o755 });
    await updateStagedRecord(layout, 'upgrades/v2', { name: 'v2', height: 900, info: 'info of proposal 7', stagedAt: new Date().toISOString(), proposal: '7' });
    assert.ok((await records())['upgrades/v2']);

    const mine = await t.fakeNode({ label: 'v2-mine' });
    const r = await t.cli(['add-upgrade', 'v2', mine, '--force', ...(height === undefined ? [] : ['--upgrade-height', height, '--yes'])]);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal((await records())['upgrades/v2'], undefined);
    assert.match(await fs.readFile(path.join(dir, 'simd'), 'utf8'), /v2-mine/);
  });
}
