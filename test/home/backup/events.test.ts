/**
 * The backup's events are the ones the status document and the metrics read: backup-started (the
 * activity), backup-progress, backup-done with `path`, `ms` and `mode` (the backups list, its duration
 * and mode; chainvisor_backup_duration_seconds).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { backupBeforeUpgrade } from '../../../src/home/backup/index.js';
import { layoutFor } from '../../../src/home/layout/index.js';
import { createMetrics } from '../../../src/observe/metrics.js';
import { buildStatus, trackLive } from '../../../src/observe/status/index.js';
import { createEventBus, type SupervisorEvent } from '../../../src/shared/events/index.js';
import { startProgressView } from '../../../src/shared/progress/index.js';
import { makeDataTree } from '../../support/data-tree.js';
import { memoryLogger } from '../../support/download-kit.js';

test('a backup emits what the status document and the metrics read', async (t) => {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-backup-events-'));
  t.after(() => fs.rm(root, { recursive: true, force: true }));
  const layout = layoutFor({ home: root, name: 'simd' });
  await fs.mkdir(layout.dataDir, { recursive: true });
  await makeDataTree(layout.dataDir);
  const bus = createEventBus();
  const seen: SupervisorEvent[] = [];
  bus.on((e) => seen.push(e));
  const tracker = trackLive({ bus, version: 't' });
  const metrics = createMetrics({ bus, version: 't', snapshot: async () => ({ nodeUp: false, current: 'genesis', pending: null }) });
  t.after(() => metrics.close());
  const upgrade = { name: 'v2', height: 10 };
  const made = await backupBeforeUpgrade({ upgrade, config: { dataBackupDir: root, backupMode: 'copy' }, layout, logger: memoryLogger().logger, events: bus });
  assert.ok(made && !made.reused);

  assert.deepEqual([...new Set(seen.map((e) => e.event))], ['backup-started', 'backup-progress', 'backup-done']);
  const done = seen.find((e) => e.event === 'backup-done');
  assert.deepEqual(done?.upgrade, upgrade);
  assert.equal(done?.data?.path, made.path);
  assert.equal(done?.data?.mode, 'copy');
  assert.equal(typeof done?.data?.ms, 'number');
  assert.equal(seen.filter((e) => e.event === 'backup-progress').at(-1)?.data?.done, true);

  const doc = await buildStatus({ layout, backupDir: root, recase: true, version: 't', live: tracker.state() });
  assert.equal(doc.backups.length, 1);
  assert.equal(doc.backups[0]?.path, made.path);
  assert.equal(doc.backups[0]?.mode, 'copy');
  assert.equal(typeof doc.backups[0]?.durationSeconds, 'number');
  assert.equal(doc.activity, null, 'no backup shown as under way once done');
  assert.match(await metrics.render(), /^chainvisor_backup_duration_seconds_count 1$/m);

  const again = await backupBeforeUpgrade({ upgrade, config: { dataBackupDir: root, backupMode: 'copy' }, layout, logger: memoryLogger().logger, events: bus });
  assert.deepEqual(again, { path: made.path, reused: true });
  assert.equal(seen.filter((e) => e.event === 'backup-done').length, 1, 'a reused backup is not a second backup');
});

test('a backup refused for space logs no "backup finished" (nor "stopped") line and leaves no activity', async (t) => {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-backup-events-'));
  t.after(() => fs.rm(root, { recursive: true, force: true }));
  const layout = layoutFor({ home: root, name: 'simd' });
  await fs.mkdir(layout.dataDir, { recursive: true });
  await makeDataTree(layout.dataDir);
  const bus = createEventBus();
  const log = memoryLogger();
  const stopView = startProgressView({ bus, logger: log.logger });
  t.after(stopView);
  const tracker = trackLive({ bus, version: 't' });
  const statfs = async () => ({ bavail: 10, bsize: 4096 });
  await assert.rejects(
    backupBeforeUpgrade({
      upgrade: { name: 'v2', height: 10 },
      config: { dataBackupDir: root, backupMode: 'copy' },
      layout,
      logger: log.logger,
      events: bus,
      statfs,
    }),
    { code: 'CHAINVISOR_BACKUP_NO_SPACE' },
  );
  const said = log.lines().map((l) => String(l.msg));
  assert.deepEqual(
    said.filter((m) => m.startsWith('backup ')),
    [],
    'nothing was backed up, so no progress line',
  );
  assert.equal(tracker.state().activity, null, 'the status shows no backup under way');
});
