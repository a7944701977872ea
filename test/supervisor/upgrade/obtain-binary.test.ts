/**
 * The halt's binary steps and a binary kept from a plan cancelled on chain (issue #45): it serves a plan
 * of its name with its Info; for another Info it is moved aside first, and the plan's own is downloaded,
 * or, with downloads off, the missing binary stops the upgrade before the backup.
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
import { layoutFor, planTarget } from '../../../src/home/layout/index.js';
import { obtainBinary, requireBinarySource } from '../../../src/supervisor/upgrade/obtain-binary.js';
import { memoryLogger } from '../../support/download-kit.js';

const kept = { name: 'v2', height: 100, info: 'info A', stagedAt: '2026-11-20T00:00:00.000Z', cancelledAt: '2026-11-21T00:00:00.000Z' };

/** A home on genesis with upgrades/v2 staged for `info A` and its plan since cancelled. */
async function home(t: TestContext, downloads = true) {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-halt-kept-'));
  t.after(() => fs.rm(root, { recursive: true, force: true }));
  const { config } = loadConfig({ env: { DAEMON_HOME: root, DAEMON_NAME: 'simd', DAEMON_ALLOW_DOWNLOAD_BINARIES: String(downloads) } });
  const layout = layoutFor(config);
  await fs.mkdir(path.join(layout.genesisDir, 'bin'), { recursive: true });
  await fs.writeFile(path.join(layout.genesisDir, 'bin', 'simd'), '#!/bin/sh\n', { mode: 0o755 });
  await fs.symlink('genesis', layout.currentLink);
  await fs.mkdir(path.join(layout.upgradesDir, 'v2', 'bin'), { recursive: true });
  await fs.writeFile(path.join(layout.upgradesDir, 'v2', 'bin', 'simd'), 'info A', { mode: 0o755 });
  await updateStagedRecord(layout, 'upgrades/v2', kept);
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
  assert.match(log.text(), /kept from a plan cancelled on chain, for another Info than the plan the node halted for/);
  assert.equal((await readStagedRecords(layout))['upgrades/v2'], undefined, 'its record goes with it');
});

test('downloads off, another Info: the missing binary stops the upgrade before the backup', async (t) => {
  const { layout, ctx } = await home(t, false);
  const target = planTarget(layout, { name: 'v2', height: 400, info: 'info B' });
  await assert.rejects(requireBinarySource(target, ctx), { code: 'CHAINVISOR_UPGRADE_BINARY_MISSING' });
});
