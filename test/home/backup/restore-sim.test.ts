/**
 * Each backup mode restores a node that starts: the simulated node (its store a real LevelDB) runs and
 * commits blocks, stops (twice, so its LevelDB holds tables and not only a log); its data is backed up; the node runs on and writes more (so a hard-linked
 * table modified in place, or a shared metadata file, would show); then data/ is replaced by the
 * backup, and the node started on it serves the height of the backup and commits the next block.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { simFixture, startNode } from '@chainvisor/simd/testing';

import { backupData } from '../../../src/home/backup/index.js';
import { memoryLogger } from '../../support/download-kit.js';

/** The last height a node's log says it committed. */
function lastCommitted(log: string): number {
  const heights = [...log.matchAll(/committed state .*height=(\d+)/g)].map((m) => Number(m[1]));
  assert.ok(heights.length > 0, `no committed block in:\n${log.slice(-2000)}`);
  return Math.max(...heights);
}

async function roundTrip(t: TestContext, mode: 'copy' | 'reflink' | 'link'): Promise<void> {
  const fixture = await simFixture(t);
  const bin = fixture.bin('genesis');
  const home = await fixture.initHome();
  const data = path.join(home, 'data');
  const backups = path.join(fixture.dir, 'backups');
  await fs.mkdir(backups);

  // Two runs: LevelDB turns the first run's write-ahead log into an *.ldb table when it opens again.
  const zeroth = await startNode(t, bin, home);
  await zeroth.waitForHeight(3);
  await zeroth.stop();
  const first = await startNode(t, bin, home);
  await first.waitForHeight(lastCommitted(zeroth.log()) + 3);
  await first.stop();
  const backedUp = lastCommitted(first.log());

  const result = await backupData({ dataDir: data, backupDir: backups, logger: memoryLogger().logger, mode });
  assert.ok(result);
  if (mode === 'link') assert.ok(result.linked > 0, 'some tables were hard-linked');

  // The node carries on from the live data after the backup was taken.
  const later = await startNode(t, bin, home);
  await later.waitForHeight(backedUp + 5);
  await later.stop();
  assert.ok(lastCommitted(later.log()) > backedUp + 3);

  // Restore: the live data set aside, a copy of the backup put in its place (the backup stays).
  await fs.rename(data, `${data}.replaced`);
  execFileSync('cp', ['-a', result.path, data]);

  const restored = await startNode(t, bin, home);
  const served = await restored.height();
  assert.ok(served >= backedUp, `the restored node serves height ${served}, the backup holds ${backedUp}`);
  await restored.waitForLog(new RegExp(`committed state .*height=${backedUp + 1}\\b`));
  await restored.waitForHeight(backedUp + 2);
  await restored.stop();
  const replayed = [...restored.log().matchAll(/committed state .*height=(\d+)/g)].map((m) => Number(m[1]));
  assert.equal(replayed[0], backedUp + 1, 'the restored node goes on from the height of the backup');
}

for (const mode of ['copy', 'reflink', 'link'] as const) {
  test(`${mode} backup restores a node that starts and produces blocks from the backup's height`, async (t) => {
    await roundTrip(t, mode);
  });
}
