/**
 * The run-time side of manual upgrades with a stand-in for the node's gRPC answers: when the node is
 * at H, when an exit is the halt, when the node must restart, and the governance clash report.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { pino } from 'pino';

import type { ChainClient } from '../../../src/chain/index.js';
import { loadConfig } from '../../../src/config/index.js';
import { layoutFor, planTarget } from '../../../src/home/layout/index.js';
import { logEvents } from '../../../src/shared/event-log.js';
import { createEventBus } from '../../../src/shared/events/index.js';
import { type ManualPlan, ManualUpgrades, readQueued, writeQueue } from '../../../src/watcher/manual/index.js';
import { waitFor } from '../../support/home.js';

interface Stub extends ChainClient {
  height: number;
  plan: { name: string; height: number; info: string } | null;
}

async function setup(t: TestContext, queue: ManualPlan[]) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'batch-runner-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  await mkdir(path.join(root, 'home'));
  const { config } = loadConfig({ env: { DAEMON_HOME: path.join(root, 'home'), DAEMON_NAME: 'simd', DAEMON_POLL_INTERVAL: '20ms' } });
  const layout = layoutFor(config);
  await writeQueue(layout, queue);
  const chain: Stub = {
    address: 'stub',
    describe: () => 'the stub',
    height: 1,
    plan: null,
    async latestHeight() {
      return chain.height;
    },
    async currentPlan() {
      return chain.plan;
    },
    query: () => Promise.reject(new Error('no query is asked')),
    close() {},
  };
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  const events = createEventBus();
  // The queue's events reach the log through the bus's log listener, as under the supervisor.
  logEvents(events, logger);
  const manual = new ManualUpgrades({ config, layout, target: (plan) => planTarget(layout, plan), logger, events, chain });
  t.after(() => manual.close());
  const calls: string[] = [];
  const due: ManualPlan[] = [];
  return { layout, chain, lines, manual, calls, due, handlers: { restart: (r: string) => void calls.push(r), due: (p: ManualPlan) => void due.push(p) } };
}

test('the node reaching H is reported once; a governance plan at a queued height is an error', async (t) => {
  const s = await setup(t, [{ name: 'v2', height: 10, info: '' }]);
  await s.manual.reconcile({ dir: 'genesis', plan: undefined });
  assert.deepEqual(s.manual.argsFor(['start']), ['start', '--halt-height=10']);
  s.chain.plan = { name: 'gov', height: 10, info: '' };
  s.manual.watch(s.handlers);
  await waitFor(() => s.lines.some((l) => l.includes('CHAINVISOR_BATCH_GOV_CLASH')), 'the clash report');
  s.chain.height = 9;
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(s.due.length, 0);
  s.chain.height = 10;
  await waitFor(() => s.due.length === 1, 'due at 10');
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(s.due.length, 1);
  assert.equal(s.lines.filter((l) => l.includes('CHAINVISOR_BATCH_GOV_CLASH')).length, 1);
});

test('an exit is the halt only when it is status 0 and not far below H', async (t) => {
  const s = await setup(t, [{ name: 'v2', height: 1000, info: '' }]);
  await s.manual.reconcile({ dir: 'genesis', plan: undefined });
  s.manual.argsFor(['start']);
  // No height seen yet (the node exited at once): taken as the halt.
  assert.equal(s.manual.haltedOnExit({ code: 0, signal: undefined })?.name, 'v2');
  assert.equal(s.manual.haltedOnExit({ code: 3, signal: undefined }), undefined);
  assert.equal(s.manual.haltedOnExit({ code: undefined, signal: 'SIGKILL' }), undefined);
  s.manual.watch(s.handlers);
  s.chain.height = 5;
  await waitFor(() => s.lines.length >= 0 && s.manual.haltedOnExit({ code: 0, signal: undefined }) === undefined, 'a height far below H seen');
  assert.ok(s.lines.some((l) => l.includes('not the halt')));
});

test('a restart is asked only when the first queued height changes; applied entries are dropped at start-up', async (t) => {
  const s = await setup(t, [
    { name: 'v2', height: 100, info: '' },
    { name: 'old', height: 50, info: '' },
  ]);
  await s.manual.reconcile({ dir: 'upgrades/old', plan: { name: 'old', height: 50, info: '' } });
  assert.deepEqual(
    (await readQueued(s.layout)).map((p) => p.name),
    ['v2'],
  );
  s.manual.argsFor(['start']);
  s.manual.watch(s.handlers);
  await writeQueue(s.layout, [
    { name: 'v2', height: 100, info: '' },
    { name: 'v3', height: 200, info: '' },
  ]);
  await waitFor(() => s.lines.some((l) => l.includes('"v3\\" queued')), 'v3 seen');
  assert.deepEqual(s.calls, []);
  await writeQueue(s.layout, [
    { name: 'v2', height: 80, info: '' },
    { name: 'v3', height: 200, info: '' },
  ]);
  await waitFor(() => s.calls.length === 1, 'a restart');
  assert.match(s.calls.join(), /now at 80/);
});

test('an invalid queue at start-up is a configuration error (exit 78), not silently ignored', async (t) => {
  const s = await setup(t, []);
  await writeFile(s.layout.batchFile, '[{"name":"v2"}]');
  await assert.rejects(
    s.manual.reconcile({ dir: 'genesis', plan: undefined }),
    (e: Error & { code?: string; exitCode?: number }) => e.code === 'CHAINVISOR_BATCH_INVALID' && e.exitCode === 78,
  );
});
