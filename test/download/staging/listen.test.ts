/**
 * Staging hears the plan watch only through the bus: a reading's events (the height, then a plan
 * replaced or scheduled) are taken together, so a plan replaced in that reading is not warned about;
 * a manual upgrade's upgrade-scheduled is not a plan to stage.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { pino } from 'pino';

import { loadConfig } from '../../../src/config/index.js';
import { startStaging } from '../../../src/download/staging/index.js';
import { layoutFor } from '../../../src/home/layout/index.js';
import { createEventBus, type SupervisorEvent } from '../../../src/shared/events/index.js';

test('the deadline is checked after all of a reading, for the plan on chain then', async (t) => {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-staging-bus-'));
  t.after(() => fs.rm(root, { recursive: true, force: true }));
  const { config } = loadConfig({
    env: { DAEMON_HOME: root, DAEMON_NAME: 'simd', DAEMON_ALLOW_DOWNLOAD_BINARIES: 'false', CHAINVISOR_STAGE_WARN_BLOCKS: '10' },
  });
  const events = createEventBus();
  const failed: SupervisorEvent[] = [];
  events.on((e) => void (e.event === 'staging-failed' && failed.push(e)));
  const staging = startStaging({ config, layout: layoutFor(config), logger: pino({ level: 'silent' }), events });
  t.after(() => staging.stop());

  // A manual upgrade queued: not staged, never warned about here.
  events.emit('upgrade-scheduled', { upgrade: { name: 'm1', height: 105 }, text: 'queued', data: { manual: true } });
  events.emit('chain-height', { text: 'h', data: { height: 100 } });
  await sleep(50);
  assert.equal(failed.length, 0, JSON.stringify(failed));

  // One reading: the height, then v2 (10 blocks away) replaced by v3 at 200: v2 is no longer the plan when it is checked.
  events.emit('upgrade-scheduled', { upgrade: { name: 'v2', height: 150 }, text: 'scheduled', data: { info: '' } });
  events.emit('chain-height', { text: 'h', data: { height: 140 } });
  events.emit('upgrade-cancelled', { upgrade: { name: 'v2', height: 150 }, text: 'replaced', data: { replacedBy: { name: 'v3', height: 200 } } });
  events.emit('upgrade-scheduled', { upgrade: { name: 'v3', height: 200 }, text: 'scheduled', data: { info: '' } });
  await sleep(50);
  assert.equal(failed.length, 0, JSON.stringify(failed));

  // The next reading brings v3 near: not installed and downloads off, an error said once.
  events.emit('chain-height', { text: 'h', data: { height: 195 } });
  await sleep(50);
  events.emit('chain-height', { text: 'h', data: { height: 196 } });
  await sleep(50);
  assert.deepEqual(
    failed.map((e) => [e.upgrade?.name, e.data?.blocksLeft]),
    [['v3', 5]],
  );
});
