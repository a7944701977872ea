/**
 * A staged binary whose plan was cancelled on chain (issue #45): it stays in `upgrades/<name>/`, marked
 * not planned in staged.json; the same plan scheduled again takes it back without a second download;
 * a plan of that name with another Info moves it aside and stages its own (at the halt:
 * test/supervisor/upgrade/obtain-binary.test.ts).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { loadConfig } from '../../../src/config/index.js';
import type { DownloadUpgradeOptions } from '../../../src/download/index.js';
import { readStagedRecords } from '../../../src/download/staging/index.js';
import { markNotPlanned, stagePlan } from '../../../src/download/staging/stage.js';
import { layoutFor } from '../../../src/home/layout/index.js';
import { memoryLogger } from '../../support/download-kit.js';

async function home(t: TestContext) {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-not-planned-'));
  t.after(() => fs.rm(root, { recursive: true, force: true }));
  const { config } = loadConfig({ env: { DAEMON_HOME: root, DAEMON_NAME: 'simd', DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true' } });
  const layout = layoutFor(config);
  await fs.mkdir(path.join(layout.genesisDir, 'bin'), { recursive: true });
  await fs.writeFile(path.join(layout.genesisDir, 'bin', 'simd'), '#!/bin/sh\n', { mode: 0o755 });
  await fs.symlink('genesis', layout.currentLink);
  // A stand-in for the download: installs a "binary" whose content is the plan's Info, and counts.
  const downloads: string[] = [];
  const download = async ({ target }: DownloadUpgradeOptions) => {
    downloads.push(target.plan.info);
    await fs.mkdir(path.dirname(target.binary), { recursive: true });
    await fs.writeFile(target.binary, target.plan.info, { mode: 0o755 });
    return { binary: target.binary };
  };
  return { config, layout, download, downloads, logger: memoryLogger().logger };
}

const planA = { name: 'v2', height: 100, info: 'info A' };

test('cancelled: the binary stays, marked not planned; the same plan again takes it back without a download', async (t) => {
  const { config, layout, download, downloads, logger } = await home(t);
  assert.equal((await stagePlan({ plan: planA, config, layout, logger, download })).status, 'downloaded');

  assert.equal(await markNotPlanned({ plan: planA, layout }), true);
  assert.equal(await markNotPlanned({ plan: planA, layout }), false, 'marked once');
  const binary = path.join(layout.upgradesDir, 'v2', 'bin', 'simd');
  assert.equal(await fs.readFile(binary, 'utf8'), 'info A', 'still on disk');
  const record = (await readStagedRecords(layout))['upgrades/v2'];
  assert.ok(record?.cancelledAt !== undefined && !Number.isNaN(Date.parse(record.cancelledAt)));

  const again = await stagePlan({ plan: { ...planA, height: 300 }, config, layout, logger, download });
  assert.equal(again.status, 'staged');
  assert.deepEqual(downloads, ['info A'], 'no second download');
  const planned = (await readStagedRecords(layout))['upgrades/v2'];
  assert.equal(planned?.cancelledAt, undefined, 'planned again');
  assert.equal(planned?.height, 300);
});

test('cancelled, then a plan of the same name with another Info: the kept binary is moved aside and the new one staged', async (t) => {
  const { config, layout, download, downloads, logger } = await home(t);
  await stagePlan({ plan: planA, config, layout, logger, download });
  await markNotPlanned({ plan: planA, layout });
  const result = await stagePlan({ plan: { ...planA, info: 'info B' }, config, layout, logger, download });
  assert.equal(result.status, 'downloaded');
  assert.deepEqual(downloads, ['info A', 'info B']);
  assert.equal(await fs.readFile(path.join(layout.upgradesDir, 'v2', 'bin', 'simd'), 'utf8'), 'info B');
  const entries = await fs.readdir(layout.upgradesDir);
  assert.ok(
    entries.some((e) => e.startsWith('v2.replaced-')),
    `moved aside, not deleted: ${entries.join(', ')}`,
  );
});

test('an operator-installed binary, or the one current runs, is never marked', async (t) => {
  const { layout } = await home(t);
  await fs.mkdir(path.join(layout.upgradesDir, 'v2', 'bin'), { recursive: true });
  await fs.writeFile(path.join(layout.upgradesDir, 'v2', 'bin', 'simd'), 'by hand', { mode: 0o755 });
  assert.equal(await markNotPlanned({ plan: planA, layout }), false, 'no record: not chainvisor staged it');
  assert.deepEqual(await readStagedRecords(layout), {});
});
