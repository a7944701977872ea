/**
 * `run` follows rehearsals.json: a new report is a rehearsal event whose height is the plan's as the
 * bus last said it, a height moved on chain (upgrade-rescheduled, issue #45) included.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { layoutFor } from '../../src/home/layout/index.js';
import { followRehearsals } from '../../src/rehearsal/index.js';
import { createEventBus, type SupervisorEvent } from '../../src/shared/events/index.js';
import { waitFor } from '../support/home.js';

test("a rehearsal's event carries the plan's height as last moved on chain", async (t) => {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-follow-rehearsals-'));
  t.after(() => fs.rm(home, { recursive: true, force: true }));
  const layout = layoutFor({ home, name: 'simd' });
  const bus = createEventBus();
  const said: SupervisorEvent[] = [];
  bus.on((e) => void (e.event === 'rehearsal-passed' && said.push(e)));
  const follow = followRehearsals({ layout, bus, intervalMs: 50 });
  t.after(() => follow.close());

  bus.emit('upgrade-scheduled', { upgrade: { name: 'v2', height: 100 }, text: '', data: { info: '' } });
  bus.emit('upgrade-rescheduled', { upgrade: { name: 'v2', height: 150 }, text: '', data: { from: 100, info: '' } });
  // Let the first read see no file: what is there before is history, not news.
  await sleep(200);
  await fs.mkdir(layout.stateDir, { recursive: true });
  const report = {
    upgrade: 'v2',
    result: 'passed',
    reason: null,
    height: 7,
    migration_seconds: 1,
    blocks_after_upgrade: 3,
    finished_at: new Date().toISOString(),
  };
  await fs.writeFile(path.join(layout.stateDir, 'rehearsals.json'), JSON.stringify([report]));
  await waitFor(() => said.length > 0, 'rehearsal-passed');
  assert.deepEqual(said[0]?.upgrade, { name: 'v2', height: 150 });
});
