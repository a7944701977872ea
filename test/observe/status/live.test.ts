/**
 * The events other parts of chainvisor emit (the plan watch: upgrade-scheduled, -rescheduled, -cancelled, chain-height;
 * backups: backup-started/done; downloads: progress; the follow: what it finds wrong in the RPC) as the
 * status document shows them.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { layoutFor } from '../../../src/home/layout/index.js';
import { buildStatus, renderStatus, trackLive } from '../../../src/observe/status/index.js';
import { createEventBus, type EventBus, type SupervisorEvent } from '../../../src/shared/events/index.js';

test('a plan from the chain, the chain height, staging, backups and progress reach the status document', async (t) => {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-live-'));
  t.after(() => fs.rm(root, { recursive: true, force: true }));
  const layout = layoutFor({ home: root, name: 'simd' });
  await fs.mkdir(path.join(layout.genesisDir, 'bin'), { recursive: true });
  await fs.writeFile(path.join(layout.genesisDir, 'bin', 'simd'), '#!/bin/sh\n', { mode: 0o755 });
  const bus = createEventBus();
  const tracker = trackLive({ bus, version: 't' });
  const changes: boolean[] = [];
  tracker.onChange((urgent) => changes.push(urgent));
  const doc = () => buildStatus({ layout, backupDir: root, recase: true, version: 't', live: tracker.state() });

  bus.emit('node-started', { text: 'started', data: { pid: 111 } });
  bus.emit('upgrade-scheduled', { upgrade: { name: 'V3', height: 500 }, text: 'scheduled' });
  bus.emit('chain-height', { text: 'height', data: { height: 380 } });
  let d = await doc();
  assert.equal(d.health.ok, true);
  assert.deepEqual(d.pending, { name: 'V3', height: 500, source: 'chain', blocksRemaining: 120, binaryPresent: false, eta: null });
  assert.equal(d.chain.height, 380);

  // Staged under its recased folder name: present.
  await fs.mkdir(path.join(layout.upgradesDir, 'v3', 'bin'), { recursive: true });
  await fs.writeFile(path.join(layout.upgradesDir, 'v3', 'bin', 'simd'), '#!/bin/sh\n', { mode: 0o755 });
  bus.emit('binary-staged', { upgrade: { name: 'V3', height: 500 }, text: 'staged' });
  d = await doc();
  assert.equal(d.pending?.binaryPresent, true);
  assert.deepEqual(
    d.staged.map((s) => s.name),
    ['v3'],
  );

  bus.emit('backup-started', { text: 'backup', data: { path: path.join(root, 'data') } });
  bus.emit('backup-progress', { text: 'backup', data: { id: 'b', what: 'data', bytes: 10, total: 100, delta: 10, done: false } });
  assert.deepEqual((await doc()).activity, { kind: 'backup', what: 'data', bytes: 10, total: 100 });
  await fs.mkdir(path.join(root, 'data-backup-2026-11-22'));
  bus.emit('backup-done', { text: 'done', data: { ms: 1500, mode: 'reflink', path: path.join(root, 'data-backup-2026-11-22') } });
  d = await doc();
  assert.equal(d.activity, null);
  assert.deepEqual(
    d.backups.map((b) => [b.name, b.durationSeconds, b.mode]),
    [['data-backup-2026-11-22', 1.5, 'reflink']],
  );

  // Moved on chain: pending follows the new height.
  bus.emit('upgrade-rescheduled', { upgrade: { name: 'V3', height: 600 }, text: 'moved', data: { from: 500, info: '' } });
  assert.deepEqual((await doc()).pending, { name: 'V3', height: 600, source: 'chain', blocksRemaining: 220, binaryPresent: true, eta: null });
  // Cancelled on chain: nothing is pending; the binary staged for it is still listed, marked not planned.
  await fs.mkdir(layout.stateDir, { recursive: true });
  const record = { name: 'V3', height: 600, info: '', stagedAt: '2026-11-20T00:00:00.000Z', cancelledAt: '2026-11-21T00:00:00.000Z' };
  await fs.writeFile(path.join(layout.stateDir, 'staged.json'), JSON.stringify({ 'upgrades/v3': record }));
  bus.emit('upgrade-cancelled', { upgrade: { name: 'V3', height: 600 }, text: 'cancelled' });
  d = await doc();
  assert.equal(d.pending, null);
  assert.deepEqual(
    d.staged.map((s) => [s.name, s.planned, s.cancelledAt]),
    [['v3', false, '2026-11-21T00:00:00.000Z']],
  );
  assert.match(renderStatus(d), /^staged +v3 \(not planned: cancelled on chain at 2026-11-21T00:00:00\.000Z\)$/m);

  // Staged for a proposal while its vote runs: said so, until the plan's staging takes it.
  const { cancelledAt: _cancelled, ...proposed } = record;
  await fs.writeFile(path.join(layout.stateDir, 'staged.json'), JSON.stringify({ 'upgrades/v3': { ...proposed, proposal: '12' } }));
  d = await doc();
  assert.deepEqual(
    d.staged.map((s) => [s.name, s.planned, s.proposal]),
    [['v3', undefined, '12']],
  );
  assert.match(renderStatus(d), /^staged +v3 \(for proposal #12\)$/m);

  bus.emit('node-exited', { text: 'exited', data: { code: 2, signal: null } });
  d = await doc();
  assert.equal(d.node.state, 'exited');
  assert.deepEqual(d.node.lastExit, { code: 2, signal: null });
  assert.equal(d.health.ok, false);
  assert.ok(changes.includes(false) && changes.includes(true), 'ticks are not urgent, stage events are');
  tracker.close();
});

/** A live tracker on a bus, and the status document of an empty home with it. */
async function liveStatus(t: TestContext) {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-live-'));
  t.after(() => fs.rm(root, { recursive: true, force: true }));
  const layout = layoutFor({ home: root, name: 'simd' });
  const bus = createEventBus();
  const tracker = trackLive({ bus, version: 't' });
  return { bus, doc: () => buildStatus({ layout, backupDir: root, recase: true, version: 't', live: tracker.state() }) };
}

test('an upgrade confirmed at a height moves the chain height there at once, never back', async (t) => {
  const { bus, doc } = await liveStatus(t);
  const confirmed = (height: number) =>
    bus.emit('upgrade-confirmed', {
      upgrade: { name: 'v2', height: 27 },
      text: 'confirmed',
      data: { upgrade: 'v2', height, state: 'confirmed', round: null, prevoteRatio: null, precommitRatio: null, ownPrevote: null, signed: true, seconds: 3.2 },
    });

  // The plan watch read 26 before the halt; the first block of v2 is committed at 27.
  bus.emit('chain-height', { text: 'height', data: { height: 26 } });
  confirmed(27);
  let d = await doc();
  assert.equal(d.chain.height, 27);
  assert.equal(d.afterUpgrade?.state, 'confirmed');
  // A plan watch already past it keeps its reading.
  bus.emit('chain-height', { text: 'height', data: { height: 40 } });
  confirmed(27);
  d = await doc();
  assert.equal(d.chain.height, 40);
});

test('what the follow finds wrong in the RPC is a problem of the status while it lasts, and shown in the text', async (t) => {
  const { bus, doc } = await liveStatus(t);
  const round = (rpcProblem: string | null) =>
    bus.emit('consensus-round', {
      upgrade: { name: 'v2', height: 27 },
      text: 'waiting',
      data: {
        upgrade: 'v2',
        height: 27,
        state: 'waiting',
        round: 0,
        prevoteRatio: 1,
        precommitRatio: null,
        ownPrevote: null,
        signed: null,
        seconds: null,
        rpcProblem,
      },
    });
  round('the prevote share claims 1e+23 of 30 voting power, more than all of it (shown as 100 %)');
  let d = await doc();
  assert.deepEqual(d.problems, [
    "after upgrade: the node's RPC answers wrongly: the prevote share claims 1e+23 of 30 voting power, more than all of it (shown as 100 %)",
  ]);
  assert.equal(d.afterUpgrade?.prevoteRatio, 1);
  assert.match(renderStatus(d), /^problem +after upgrade: the node's RPC answers wrongly: the prevote share claims/m);
  round(null);
  d = await doc();
  assert.deepEqual(d.problems, []);
  // The next upgrade starts clean.
  round('x');
  bus.emit('upgrade-applied', { upgrade: { name: 'v3', height: 50 }, text: 'applied', data: { ms: 10 } });
  assert.deepEqual((await doc()).problems, []);
});

test('pending.eta: the block time over the heights read, in the JSON and the text (issue #35)', async (t) => {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-eta-'));
  t.after(() => fs.rm(root, { recursive: true, force: true }));
  const layout = layoutFor({ home: root, name: 'simd' });
  // A bus whose events carry the times the test gives: the heights are read 10 blocks of 6 s apart.
  const listeners = new Set<(e: SupervisorEvent) => void>();
  let clock = Date.now() - 3_000_000;
  const bus: EventBus = {
    on: (l) => (listeners.add(l), () => listeners.delete(l)),
    emit: (event, fields) => {
      const record: SupervisorEvent = { event, time: clock, ...fields };
      for (const l of listeners) l(record);
      return record;
    },
  };
  const tracker = trackLive({ bus, version: 't' });
  t.after(() => tracker.close());
  const doc = () => buildStatus({ layout, backupDir: root, recase: true, version: 't', live: tracker.state() });
  bus.emit('node-started', { text: 'started', data: { pid: 1 } });
  bus.emit('upgrade-scheduled', { upgrade: { name: 'v2', height: 2000 }, text: 'scheduled' });
  bus.emit('chain-height', { text: 'h', data: { height: 1000 } });
  assert.equal((await doc()).pending?.eta, null, 'one height says nothing of the pace');
  for (let h = 1010; h <= 1500; h += 10) {
    clock += 60_000;
    bus.emit('chain-height', { text: 'h', data: { height: h } });
  }
  const d = await doc();
  const eta = d.pending?.eta;
  assert.ok(eta);
  assert.equal(eta.blockTimeSeconds, 6);
  assert.equal(eta.basedOnBlocks, 500);
  assert.equal(eta.at, new Date(clock + 500 * 6000).toISOString());
  assert.ok(eta.seconds > 2900 && eta.seconds <= 3000, `about 500 × 6 s from the last reading (${eta.seconds})`);
  assert.match(renderStatus(d), /^eta +v2 at height 2000: in about (49|50) min \(around \d\d:\d\d UTC; block time 6\.0 s over the last 500 blocks\)$/m);
  // Moved 500 blocks later on chain: the estimate follows the new height at the same pace.
  bus.emit('upgrade-rescheduled', { upgrade: { name: 'v2', height: 2500 }, text: 'moved', data: { from: 2000, info: '' } });
  const moved = (await doc()).pending;
  assert.equal(moved?.height, 2500);
  assert.equal(moved?.eta?.at, new Date(clock + 1000 * 6000).toISOString());
  // The halt of an upgrade is not block time: a new window begins.
  bus.emit('upgrade-detected', { upgrade: { name: 'v2', height: 2000 }, text: 'halt' });
  assert.equal(tracker.state().blockTime, null);
});
