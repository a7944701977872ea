/**
 * A staged binary whose plan was cancelled on chain (issue #45): it stays in `upgrades/<name>/`, marked
 * not planned in staged.json; the same plan scheduled again takes it back without a second download;
 * a plan of that name with another Info moves it aside and stages its own (at the halt:
 * test/supervisor/upgrade/obtain-binary.test.ts). A proposal's staging (`keepOther`) never replaces
 * another binary; its record names the proposal until the plan's staging takes it; stagings of one
 * folder run one after the other.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { loadConfig } from '../../../src/config/index.js';
import type { DownloadUpgradeOptions } from '../../../src/download/index.js';
import { readStagedRecords } from '../../../src/download/staging/index.js';
import { updateStagedRecord } from '../../../src/download/staging/record.js';
import { markNotPlanned, setAsideOtherInfo, stagePlan } from '../../../src/download/staging/stage.js';
import { layoutFor, planTarget } from '../../../src/home/layout/index.js';
import { memoryLogger } from '../../support/download-kit.js';

async function home(t: TestContext) {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-not-planned-'));
  t.after(() => fs.rm(root, { recursive: true, force: true }));
  const { config } = loadConfig({ env: { DAEMON_HOME: root, DAEMON_NAME: 'simd', DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true' } });
  const layout = layoutFor(config);
  await fs.mkdir(path.join(layout.genesisDir, 'bin'), { recursive: true });
  await fs.writeFile(path.join(layout.genesisDir, 'bin', 'simd'), '#!/bin/sh\n', { mode: 0o755 });
  await fs.symlink('genesis', layout.currentLink);
  // A stand-in for the download: installs a "binary" whose content is the plan's Info, and counts. Each
  // waits for `gate` (open unless a test closes it), so that two stagings can overlap.
  const downloads: string[] = [];
  const asked: DownloadUpgradeOptions[] = [];
  const gate = { open: Promise.resolve() };
  const download = async (options: DownloadUpgradeOptions) => {
    const { target } = options;
    asked.push(options);
    await gate.open;
    downloads.push(target.plan.info);
    await fs.mkdir(path.dirname(target.binary), { recursive: true });
    await fs.writeFile(target.binary, target.plan.info, { mode: 0o755 });
    return { binary: target.binary };
  };
  return { config, layout, download, downloads, asked, gate, logger: memoryLogger().logger };
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

const binaryOf = (layout: { upgradesDir: string }) => path.join(layout.upgradesDir, 'v2', 'bin', 'simd');
const asideIn = async (layout: { upgradesDir: string }) => (await fs.readdir(layout.upgradesDir)).filter((e) => e.startsWith('v2.replaced-'));

test("a proposal's staging never replaces a binary staged for another Info: occupied, nothing moved or fetched", async (t) => {
  const { config, layout, download, downloads, logger } = await home(t);
  await stagePlan({ plan: planA, config, layout, logger, download });
  const result = await stagePlan({ plan: { ...planA, info: 'info B' }, config, layout, logger, download, keepOther: true, proposal: '7' });
  assert.equal(result.status, 'occupied');
  assert.deepEqual(result.occupiedBy, { info: 'info A' });
  assert.deepEqual(downloads, ['info A'], 'nothing fetched');
  assert.equal(await fs.readFile(binaryOf(layout), 'utf8'), 'info A', 'the binary in place stays');
  assert.deepEqual(await asideIn(layout), []);
  assert.equal((await readStagedRecords(layout))['upgrades/v2']?.proposal, undefined, "the record stays the plan's");

  // Another proposal's binary, or a cancelled plan's, is kept the same way; one the operator installed is `installed`.
  await fs.rm(path.join(layout.upgradesDir, 'v2'), { recursive: true });
  assert.equal(
    (await stagePlan({ plan: { ...planA, info: 'info C' }, config, layout, logger, download, keepOther: true, proposal: '8' })).status,
    'downloaded',
  );
  const other = await stagePlan({ plan: { ...planA, info: 'info D' }, config, layout, logger, download, keepOther: true, proposal: '9' });
  assert.deepEqual([other.status, other.occupiedBy], ['occupied', { info: 'info C', proposal: '8' }]);
  await markNotPlanned({ plan: planA, layout });
  assert.equal((await stagePlan({ plan: { ...planA, info: 'info D' }, config, layout, logger, download, keepOther: true, proposal: '9' })).status, 'occupied');
  await fs.writeFile(binaryOf(layout), 'by hand', { mode: 0o755 });
  await updateStagedRecord(layout, 'upgrades/v2', undefined);
  assert.equal((await stagePlan({ plan: { ...planA, info: 'info D' }, config, layout, logger, download, keepOther: true, proposal: '9' })).status, 'installed');
  assert.equal(await fs.readFile(binaryOf(layout), 'utf8'), 'by hand');
  assert.deepEqual(downloads, ['info A', 'info C']);
});

test("a proposal's binary is recorded with its id; the plan's staging with the same Info takes it without a download", async (t) => {
  const { config, layout, download, downloads, logger } = await home(t);
  const proposed = await stagePlan({ plan: planA, config, layout, logger, download, keepOther: true, proposal: '7' });
  assert.equal(proposed.status, 'downloaded');
  assert.equal((await readStagedRecords(layout))['upgrades/v2']?.proposal, '7');
  // Asked again for the proposal: nothing changes.
  assert.equal((await stagePlan({ plan: planA, config, layout, logger, download, keepOther: true, proposal: '7' })).status, 'staged');
  assert.equal((await readStagedRecords(layout))['upgrades/v2']?.proposal, '7');

  const planned = await stagePlan({ plan: { ...planA, height: 120 }, config, layout, logger, download });
  assert.equal(planned.status, 'staged');
  assert.deepEqual(downloads, ['info A'], 'fetched once');
  const record = (await readStagedRecords(layout))['upgrades/v2'];
  assert.equal(record?.proposal, undefined, "now the plan's");
  assert.equal(record?.height, 120);

  // A proposal with the same Info never takes the plan's binary back.
  assert.equal((await stagePlan({ plan: planA, config, layout, logger, download, keepOther: true, proposal: '8' })).status, 'staged');
  assert.equal((await readStagedRecords(layout))['upgrades/v2']?.proposal, undefined);
});

test("the plan's staging moves a proposal's binary of another Info aside; so does the halt", async (t) => {
  const { config, layout, download, downloads, logger } = await home(t);
  await stagePlan({ plan: planA, config, layout, logger, download, keepOther: true, proposal: '7' });
  assert.equal((await stagePlan({ plan: { ...planA, info: 'info B' }, config, layout, logger, download })).status, 'downloaded');
  assert.equal(await fs.readFile(binaryOf(layout), 'utf8'), 'info B');
  assert.equal((await asideIn(layout)).length, 1, 'moved aside, not deleted');
  assert.deepEqual(downloads, ['info A', 'info B']);

  // At the halt: whatever chainvisor staged for another Info (a proposal's, a plan's) is set aside.
  await fs.rm(path.join(layout.upgradesDir, 'v2'), { recursive: true });
  await stagePlan({ plan: planA, config, layout, logger, download, keepOther: true, proposal: '7' });
  assert.equal(await setAsideOtherInfo({ target: planTarget(layout, planA), layout, logger }), undefined, 'its own Info stays');
  const aside = await setAsideOtherInfo({ target: planTarget(layout, { ...planA, info: 'info B' }), layout, logger });
  assert.ok(aside !== undefined && (await fs.readFile(path.join(aside, 'bin', 'simd'), 'utf8')) === 'info A', 'moved, never deleted');
  assert.equal((await readStagedRecords(layout))['upgrades/v2'], undefined);
});

test('stagings of one folder run one after the other: the second sees the first, nothing is fetched twice', async (t) => {
  const { config, layout, download, downloads, asked, gate, logger } = await home(t);
  let open = () => {};
  gate.open = new Promise<void>((resolve) => (open = resolve));
  const first = stagePlan({ plan: planA, config, layout, logger, download });
  const second = stagePlan({ plan: planA, config, layout, logger, download, keepOther: true, proposal: '7' });
  // The proposal's, for another Info, waits behind both; it must not find the folder empty.
  const third = stagePlan({ plan: { ...planA, info: 'info B' }, config, layout, logger, download, keepOther: true, proposal: '8' });
  await new Promise((resolve) => setImmediate(resolve));
  open();
  const results = await Promise.all([first, second, third]);
  assert.deepEqual(
    results.map((r) => r.status),
    ['downloaded', 'staged', 'occupied'],
  );
  assert.deepEqual(downloads, ['info A']);
  assert.equal(asked.length, 1);
  assert.equal((await readStagedRecords(layout))['upgrades/v2']?.proposal, undefined, "the plan's record, kept");
});

test("the URL policy given to a proposal's staging reaches the download", async (t) => {
  const { config, layout, download, asked, logger } = await home(t);
  const policy = { allowInsecureHttp: false, allowFileUrls: false, publicOnly: true };
  await stagePlan({ plan: planA, config, layout, logger, download, keepOther: true, proposal: '7', policy });
  assert.deepEqual(asked[0]?.policy, policy);
});
