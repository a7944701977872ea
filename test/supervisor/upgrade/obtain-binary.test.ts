/**
 * The halt's binary steps and a binary chainvisor staged for a plan cancelled on chain since, or for a
 * proposal while it was voted (issue #45): it serves a plan of its name with its Info; for another Info
 * it is moved aside first, and the plan's own is downloaded, or, with downloads off, the missing binary
 * stops the upgrade before the backup. One the operator installed is never touched.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { loadConfig } from '../../../src/config/index.js';
import type { DownloadUpgradeOptions } from '../../../src/download/index.js';
import { readStagedRecords, type StagedRecord } from '../../../src/download/staging/index.js';
import { updateStagedRecord } from '../../../src/download/staging/record.js';
import { layoutFor, planTarget } from '../../../src/home/layout/index.js';
import { obtainBinary, requireBinarySource } from '../../../src/supervisor/upgrade/obtain-binary.js';
import { memoryLogger } from '../../support/download-kit.js';

const kept = { name: 'v2', height: 100, info: 'info A', stagedAt: '2026-11-20T00:00:00.000Z', cancelledAt: '2026-11-21T00:00:00.000Z' };

const proposed = { name: 'v2', height: 100, info: 'info A', stagedAt: '2026-11-20T00:00:00.000Z', proposal: '7' };

/** A home on genesis with upgrades/v2 staged for `info A` and its plan since cancelled (or `record`; null: none, the operator installed it). */
async function home(t: TestContext, downloads = true, record: StagedRecord | null = kept) {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-halt-kept-'));
  t.after(() => fs.rm(root, { recursive: true, force: true }));
  const { config } = loadConfig({ env: { DAEMON_HOME: root, DAEMON_NAME: 'simd', DAEMON_ALLOW_DOWNLOAD_BINARIES: String(downloads) } });
  const layout = layoutFor(config);
  await fs.mkdir(path.join(layout.genesisDir, 'bin'), { recursive: true });
  await fs.writeFile(path.join(layout.genesisDir, 'bin', 'simd'), '#!/bin/sh\n', { mode: 0o755 });
  await fs.symlink('genesis', layout.currentLink);
  await fs.mkdir(path.join(layout.upgradesDir, 'v2', 'bin'), { recursive: true });
  await fs.writeFile(path.join(layout.upgradesDir, 'v2', 'bin', 'simd'), 'info A', { mode: 0o755 });
  if (record !== null) await updateStagedRecord(layout, 'upgrades/v2', record);
  // A stand-in for the download: installs a "binary" whose content is the plan's Info.
  const fetched: string[] = [];
  const download = async ({ target }: DownloadUpgradeOptions) => {
    fetched.push(target.plan.info);
    await fs.mkdir(path.dirname(target.binary), { recursive: true });
    await fs.writeFile(target.binary, target.plan.info, { mode: 0o755 });
    return { binary: target.binary };
  };
  const log = memoryLogger();
  const ctx = { config, layout, logger: log.logger, signal: new AbortController().signal, download };
  return { layout, ctx, fetched, log };
}

test('the node halts for the cancelled plan scheduled again with its Info: the kept binary is used, nothing downloaded', async (t) => {
  const { layout, ctx, fetched } = await home(t);
  const target = planTarget(layout, { name: 'v2', height: 400, info: 'info A' });
  await requireBinarySource(target, ctx);
  await obtainBinary(target, ctx);
  assert.deepEqual(fetched, []);
  assert.equal(await fs.readFile(target.binary, 'utf8'), 'info A');
});

test('the node halts for a plan of that name with another Info: the kept binary is moved aside, the plan downloaded', async (t) => {
  const { layout, ctx, fetched, log } = await home(t);
  const target = planTarget(layout, { name: 'v2', height: 400, info: 'info B' });
  await requireBinarySource(target, ctx);
  await obtainBinary(target, ctx);
  assert.deepEqual(fetched, ['info B']);
  assert.equal(await fs.readFile(target.binary, 'utf8'), 'info B');
  assert.ok(
    (await fs.readdir(layout.upgradesDir)).some((e) => e.startsWith('v2.replaced-')),
    'moved aside, not deleted',
  );
  assert.match(log.text(), /staged for a plan cancelled on chain, for another Info than the plan the node halted for/);
  assert.equal((await readStagedRecords(layout))['upgrades/v2'], undefined, 'its record goes with it');
});

test('downloads off, another Info: the missing binary stops the upgrade before the backup', async (t) => {
  const { layout, ctx } = await home(t, false);
  const target = planTarget(layout, { name: 'v2', height: 400, info: 'info B' });
  await assert.rejects(requireBinarySource(target, ctx), {
    code: 'CHAINVISOR_UPGRADE_BINARY_MISSING',
    message:
      /needs .*v2\/bin\/simd, which is not installed \(the binary there was staged for another Info and was moved aside to .*v2\.replaced-.*\), and automatic download is off; current still points at genesis/,
  });
});

test("the node halts for a plan while a proposal's binary of another Info is in its folder: moved aside, the plan's downloaded", async (t) => {
  const { layout, ctx, fetched, log } = await home(t, true, proposed);
  const target = planTarget(layout, { name: 'v2', height: 400, info: 'info B' });
  await requireBinarySource(target, ctx);
  await obtainBinary(target, ctx);
  assert.deepEqual(fetched, ['info B']);
  assert.equal(await fs.readFile(target.binary, 'utf8'), 'info B');
  const aside = (await fs.readdir(layout.upgradesDir)).filter((e) => e.startsWith('v2.replaced-'));
  assert.equal(aside.length, 1, 'moved aside, not deleted');
  assert.equal(await fs.readFile(path.join(layout.upgradesDir, aside[0] as string, 'bin', 'simd'), 'utf8'), 'info A');
  assert.match(log.text(), /staged for proposal #7, for another Info than the plan the node halted for/);
});

test("downloads off, a proposal's binary of another Info: set aside, and the upgrade stops before the backup", async (t) => {
  const { layout, ctx } = await home(t, false, proposed);
  const target = planTarget(layout, { name: 'v2', height: 400, info: 'info B' });
  await assert.rejects(requireBinarySource(target, ctx), { code: 'CHAINVISOR_UPGRADE_BINARY_MISSING', message: /moved aside/ });
  assert.equal(await fs.stat(target.binary).catch(() => undefined), undefined, "the proposal's binary is not the plan's");
});

test("a proposal's binary with the plan's Info is the plan's; one the operator installed is never touched", async (t) => {
  const same = await home(t, false, proposed);
  const target = planTarget(same.layout, { name: 'v2', height: 400, info: 'info A' });
  await requireBinarySource(target, same.ctx);
  await obtainBinary(target, same.ctx);
  assert.equal(await fs.readFile(target.binary, 'utf8'), 'info A');

  const byHand = await home(t, false, null);
  const other = planTarget(byHand.layout, { name: 'v2', height: 400, info: 'info B' });
  await requireBinarySource(other, byHand.ctx);
  await obtainBinary(other, byHand.ctx);
  assert.deepEqual(byHand.fetched, []);
  assert.equal(await fs.readFile(other.binary, 'utf8'), 'info A', 'no record: the operator installed it');
});

test('a binary staged for an earlier plan of that name (not cancelled) with another Info is set aside too', async (t) => {
  const { cancelledAt: _cancelled, ...planned } = kept;
  const { layout, ctx, fetched, log } = await home(t, true, planned);
  const target = planTarget(layout, { name: 'v2', height: 400, info: 'info B' });
  await requireBinarySource(target, ctx);
  await obtainBinary(target, ctx);
  assert.deepEqual(fetched, ['info B']);
  assert.match(log.text(), /staged for an earlier plan, for another Info/);
});
