/**
 * When the switch is rehearsed ahead (src/supervisor/warming.ts): only when an upgrade is coming (a
 * binary waiting for its upgrade, a plan scheduled, its height near), once per reason, never at rest,
 * never while a switch is under way. The rehearsal itself is a stand-in here (warm.test.ts has the real one).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { loadConfig } from '../../src/config/index.js';
import { type Current, type Layout, layoutFor } from '../../src/home/layout/index.js';
import { createEventBus, type EventBus } from '../../src/shared/events/index.js';
import { createLogger } from '../../src/shared/log.js';
import { SwitchWarming, upgradeStaged } from '../../src/supervisor/warming.js';

const genesisCurrent: Current = { dir: 'genesis', plan: undefined };

interface Kit {
  layout: Layout;
  events: EventBus;
  warming: SwitchWarming;
  /** Each rehearsal asked for, with its signal. */
  calls: AbortSignal[];
  /** Installs `upgrades/<dir>/bin/simd`, with the plan record an applied upgrade has when `applied`. */
  install(dir: string, applied?: boolean): Promise<void>;
}

async function kit(t: { after(fn: () => Promise<void>): void }, warm?: (signal: AbortSignal) => Promise<boolean>): Promise<Kit> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'cv-warming-'));
  const home = path.join(root, 'home');
  const layout = layoutFor({ home, name: 'simd' });
  await fs.mkdir(path.join(layout.genesisDir, 'bin'), { recursive: true });
  await fs.writeFile(path.join(layout.genesisDir, 'bin', 'simd'), '#!/bin/sh\n', { mode: 0o755 });
  const { config } = loadConfig({ env: { DAEMON_HOME: home, DAEMON_NAME: 'simd', CHAINVISOR_STAGE_WARN_BLOCKS: '100' } });
  const events = createEventBus();
  const calls: AbortSignal[] = [];
  const warming = new SwitchWarming({
    config,
    layout,
    logger: createLogger({ disabled: true }),
    events,
    warm: (signal) => {
      calls.push(signal);
      return warm ? warm(signal) : Promise.resolve(true);
    },
  });
  t.after(async () => {
    await warming.close();
    await fs.rm(root, { recursive: true, force: true });
  });
  const install = async (dir: string, applied = false) => {
    const folder = path.join(layout.upgradesDir, dir);
    await fs.mkdir(path.join(folder, 'bin'), { recursive: true });
    await fs.writeFile(path.join(folder, 'bin', 'simd'), '#!/bin/sh\n', { mode: 0o755 });
    if (applied) await fs.writeFile(path.join(folder, 'upgrade-info.json'), JSON.stringify({ name: dir, height: 10 }));
  };
  return { layout, events, warming, calls, install };
}

test('at rest (genesis, nothing installed for an upgrade): no rehearsal', async (t) => {
  const k = await kit(t);
  await k.warming.nodeStarted(genesisCurrent);
  await k.warming.nodeStarted(genesisCurrent);
  assert.equal(k.calls.length, 0);
});

test('upgrades already applied, and the one running: no rehearsal', async (t) => {
  const k = await kit(t);
  await k.install('v1', true);
  await k.install('v2', true);
  // `current` on a folder with no record (installed by hand and switched by an operator): it is what runs.
  await k.install('v3');
  await k.warming.nodeStarted({ dir: 'upgrades/v3', plan: undefined });
  assert.equal(k.calls.length, 0);
  assert.equal(await upgradeStaged(k.layout, { dir: 'upgrades/v3', plan: undefined }), false);
});

test('a binary installed for an upgrade not yet applied: one rehearsal per run, none after a switch', async (t) => {
  const k = await kit(t);
  await k.install('v1', true);
  await k.install('v2');
  await k.warming.nodeStarted(genesisCurrent);
  assert.equal(k.calls.length, 1);
  await k.warming.nodeStarted(genesisCurrent); // a restart of the node
  assert.equal(k.calls.length, 1);

  const other = await kit(t);
  await other.install('v2');
  other.warming.switched(); // the run already switched once: its code is warm
  await other.warming.nodeStarted(genesisCurrent);
  assert.equal(other.calls.length, 0);
});

test('a plan scheduled: one rehearsal; again once its height is CHAINVISOR_STAGE_WARN_BLOCKS away, not before', async (t) => {
  const k = await kit(t);
  await k.warming.nodeStarted(genesisCurrent);
  assert.equal(k.calls.length, 0);
  const upgrade = { name: 'v2', height: 1000 };
  k.events.emit('upgrade-scheduled', { upgrade, text: 'scheduled' });
  k.events.emit('upgrade-scheduled', { upgrade, text: 'scheduled' });
  await k.warming.settled();
  assert.equal(k.calls.length, 1);
  k.events.emit('chain-height', { text: 'height', data: { height: 899 } });
  await k.warming.settled();
  assert.equal(k.calls.length, 1, '101 blocks away: not yet');
  k.events.emit('chain-height', { text: 'height', data: { height: 900 } });
  await k.warming.settled();
  k.events.emit('chain-height', { text: 'height', data: { height: 950 } });
  await k.warming.settled();
  assert.equal(k.calls.length, 2, 'near: once more, once');
  k.events.emit('plan-cancelled', { upgrade, text: 'cancelled' });
  k.events.emit('chain-height', { text: 'height', data: { height: 999 } });
  await k.warming.settled();
  assert.equal(k.calls.length, 2);
});

test('nothing begins while no node runs or a switch is under way; a rehearsal under way is given up, and due again at the next start', async (t) => {
  const k = await kit(t, (signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(false))));
  // Scheduled before any node runs: waits for the start.
  k.events.emit('upgrade-scheduled', { upgrade: { name: 'v2', height: 1000 }, text: 'scheduled' });
  await k.warming.settled();
  assert.equal(k.calls.length, 0);
  const started = k.warming.nodeStarted(genesisCurrent);
  while (k.calls.length === 0) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(k.calls[0]?.aborted, false);
  k.warming.pause(); // the run loop woke up: a switch may follow
  await started;
  assert.equal(k.calls[0]?.aborted, true);
  k.events.emit('upgrade-scheduled', { upgrade: { name: 'v3', height: 2000 }, text: 'scheduled' });
  await k.warming.settled();
  assert.equal(k.calls.length, 1, 'paused: nothing begins');
  const again = k.warming.nodeStarted(genesisCurrent);
  while (k.calls.length === 1) await new Promise((resolve) => setImmediate(resolve));
  await k.warming.close();
  await again;
  assert.equal(k.calls.length, 2);
  assert.equal(k.calls[1]?.aborted, true, 'close gives it up');
});
