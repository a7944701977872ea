/**
 * A node whose gRPC does not answer (many validators turn it off): the plan watch backs off to
 * CHAINVISOR_PLAN_POLL_INTERVAL instead of asking every second for ever, and says once what that costs.
 * The client is the real one, pointed at a loopback port where nothing listens. Then what it says of
 * the plan it reads (issue #45): scheduled, moved, a new Info, cancelled, replaced, applied; there the
 * client is a stand-in whose plan the test changes.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { pino } from 'pino';

import { type ChainClient, createChainReader, createGrpcClient, resolveChainAddresses, type ScheduledPlan } from '../../src/chain/index.js';
import { loadConfig } from '../../src/config/index.js';
import { layoutFor, readCurrent } from '../../src/home/layout/index.js';
import { createEventBus, type SupervisorEvent } from '../../src/shared/events/index.js';
import { startPlanWatcher, unansweredWait } from '../../src/watcher/plan-watch.js';
import { unusedPort } from '../support/ports.js';

describe('the plan watch beside a node with no gRPC', () => {
  let root: string;
  before(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-unanswered-'));
    await fs.mkdir(path.join(root, 'home/cosmovisor/genesis/bin'), { recursive: true });
  });
  after(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  test('waits 1, 2, 4 … seconds between unanswered reads, up to the interval', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 20].map((m) => unansweredWait(m, 10_000)),
      [1000, 2000, 4000, 8000, 10_000, 10_000, 10_000],
    );
    assert.equal(unansweredWait(1, 300), 300);
  });

  /** Runs a plan watch for `ms` against the closed port; returns the reads it made and its log lines. */
  async function watchFor(ms: number, interval: string, unreachableAfterMs = 60_000): Promise<{ reads: number; lines: Array<{ level: number; msg: string }> }> {
    const address = `127.0.0.1:${await unusedPort()}`;
    const { config } = loadConfig({
      env: { DAEMON_HOME: path.join(root, 'home'), DAEMON_NAME: 'simd', DAEMON_GRPC_ADDRESS: address, CHAINVISOR_PLAN_POLL_INTERVAL: interval },
    });
    const real = createGrpcClient({ address, timeoutMs: 500 });
    let reads = 0;
    const client = { ...real, address, currentPlan: () => (reads++, real.currentPlan()), latestHeight: () => real.latestHeight(), close: () => real.close() };
    const lines: Array<{ level: number; msg: string }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
    const events = createEventBus();
    const watcher = startPlanWatcher({ config, current: () => readCurrent(layoutFor(config)), logger, events, client, unreachableAfterMs });
    events.emit('node-started', { text: 'node started' });
    await sleep(ms);
    await watcher.stop();
    return { reads, lines };
  }

  test('a node that never answers is read at 0, 1 and 3 s, not every second', async () => {
    const { reads, lines } = await watchFor(3500, '10s');
    // Every second (as before) would be 4 reads; a loaded machine may delay the third.
    assert.ok(reads >= 2 && reads <= 3, `${reads} reads`);
    assert.deepEqual(lines, [], 'nothing said before the reads have backed off to the interval');
  });

  test('says once that it cannot reach the node, naming what it asked, and what that costs', async () => {
    const { reads, lines } = await watchFor(2600, '300ms', 1000);
    assert.ok(reads >= 5, `${reads} reads`);
    const warned = lines.filter((l) => /no answer from/.test(l.msg));
    assert.equal(warned.length, 1, JSON.stringify(lines));
    assert.equal(warned[0]?.level, 40);
    assert.match(
      warned[0]?.msg ?? '',
      /no answer from the node's gRPC at 127\.0\.0\.1:\d+ since the node started \d+ s ago: .*nobody is warned when its height nears/,
    );
    assert.match(warned[0]?.msg ?? '', /Asking again every 300ms/);
    assert.match(warned[0]?.msg ?? '', /DAEMON_GRPC_ADDRESS or CHAINVISOR_RPC_ADDRESS/);
  });

  test('the chain reader on neither gRPC nor RPC: one warning naming both addresses', async () => {
    const [grpcPort, rpcPort] = [await unusedPort(), await unusedPort()];
    const { config } = loadConfig({
      env: { DAEMON_HOME: path.join(root, 'home'), DAEMON_NAME: 'simd', DAEMON_GRPC_ADDRESS: `127.0.0.1:${grpcPort}`, CHAINVISOR_PLAN_POLL_INTERVAL: '300ms' },
    });
    const addresses = resolveChainAddresses({
      home: config.home,
      operator: { grpc: { address: `127.0.0.1:${grpcPort}`, source: 'test' }, rpc: { address: `tcp://127.0.0.1:${rpcPort}`, source: 'test' } },
    });
    const client = createChainReader({ addresses, timeoutMs: 500 });
    const lines: Array<{ level: number; msg: string }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
    const events = createEventBus();
    const watcher = startPlanWatcher({ config, current: () => readCurrent(layoutFor(config)), logger, events, client, unreachableAfterMs: 1000 });
    events.emit('node-started', { text: 'node started' });
    await sleep(2600);
    await watcher.stop();
    const warned = lines.filter((l) => /no answer from/.test(l.msg));
    assert.equal(warned.length, 1, JSON.stringify(lines));
    assert.match(
      warned[0]?.msg ?? '',
      new RegExp(`no answer from the node's gRPC at 127\\.0\\.0\\.1:${grpcPort} and its RPC at tcp://127\\.0\\.0\\.1:${rpcPort} since`),
    );
  });
});

describe('what the plan watch says of the plan on chain', () => {
  let root: string;
  before(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-plan-events-'));
  });
  after(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  /** A plan watch on a chain whose plan is `chain.plan`; `applied` is the plan `current` records. */
  function watch(t: TestContext) {
    const { config } = loadConfig({ env: { DAEMON_HOME: root, DAEMON_NAME: 'simd', CHAINVISOR_PLAN_POLL_INTERVAL: '100ms' } });
    const chain: { plan: ScheduledPlan | null; applied: ScheduledPlan | undefined; reads: number } = { plan: null, applied: undefined, reads: 0 };
    const client: ChainClient = {
      address: 'stand-in',
      describe: () => 'a stand-in chain',
      currentPlan: () => (chain.reads++, Promise.resolve(chain.plan)),
      latestHeight: () => Promise.resolve(50),
      query: () => Promise.reject(new Error('the plan watch asks no other query')),
      close: () => undefined,
    };
    const events = createEventBus();
    const said: SupervisorEvent[] = [];
    events.on((e) => void (e.event !== 'chain-height' && said.push(e)));
    const watcher = startPlanWatcher({
      config,
      logger: pino({ level: 'silent' }),
      events,
      client,
      current: () => Promise.resolve({ dir: chain.applied ? `upgrades/${chain.applied.name}` : 'genesis', plan: chain.applied }),
    });
    t.after(() => watcher.stop());
    /** Sets the plan on chain and waits for two more reads of it. */
    const read = async (plan: ScheduledPlan | null) => {
      chain.plan = plan;
      const until = chain.reads + 2;
      while (chain.reads < until) await sleep(20);
      return said.splice(0).map((e) => ({ event: e.event, upgrade: e.upgrade, text: e.text, data: e.data }));
    };
    return { chain, read };
  }

  test('scheduled, moved (upgrade-rescheduled), a new Info (upgrade-scheduled), then cancelled', async (t) => {
    const { read } = watch(t);
    assert.deepEqual(await read({ name: 'v2', height: 100, info: 'A' }), [
      { event: 'upgrade-scheduled', upgrade: { name: 'v2', height: 100 }, text: 'upgrade "v2" scheduled on chain at height 100', data: { info: 'A' } },
    ]);
    assert.deepEqual(await read({ name: 'v2', height: 150, info: 'A' }), [
      {
        event: 'upgrade-rescheduled',
        upgrade: { name: 'v2', height: 150 },
        text: 'upgrade "v2" moved on chain from height 100 to height 150',
        data: { from: 100, info: 'A' },
      },
    ]);
    assert.deepEqual(await read({ name: 'v2', height: 150, info: 'B' }), [
      { event: 'upgrade-scheduled', upgrade: { name: 'v2', height: 150 }, text: 'upgrade "v2" at height 150 changed on chain: new Info', data: { info: 'B' } },
    ]);
    assert.deepEqual(await read({ name: 'v2', height: 120, info: 'C' }), [
      {
        event: 'upgrade-rescheduled',
        upgrade: { name: 'v2', height: 120 },
        text: 'upgrade "v2" moved on chain from height 150 to height 120, with a new Info',
        data: { from: 150, info: 'C' },
      },
    ]);
    assert.deepEqual(await read(null), [
      {
        event: 'upgrade-cancelled',
        upgrade: { name: 'v2', height: 120 },
        text: 'upgrade "v2" at height 120 was cancelled on chain: nothing will be switched at height 120',
        data: undefined,
      },
    ]);
    assert.deepEqual(await read(null), [], 'said once');
  });

  test('replaced by a plan of another name: upgrade-cancelled naming it, then upgrade-scheduled', async (t) => {
    const { read } = watch(t);
    await read({ name: 'v3', height: 200, info: '' });
    assert.deepEqual(await read({ name: 'v4', height: 300, info: '' }), [
      {
        event: 'upgrade-cancelled',
        upgrade: { name: 'v3', height: 200 },
        text: 'upgrade "v3" at height 200 was replaced on chain by "v4" at height 300: nothing will be switched at height 200',
        data: { replacedBy: { name: 'v4', height: 300 } },
      },
      { event: 'upgrade-scheduled', upgrade: { name: 'v4', height: 300 }, text: 'upgrade "v4" scheduled on chain at height 300', data: { info: '' } },
    ]);
  });

  test('a plan applied (current records it) leaves the chain unreported', async (t) => {
    const { chain, read } = watch(t);
    const v2 = { name: 'v2', height: 100, info: '' };
    await read(v2);
    chain.applied = v2;
    assert.deepEqual(await read(null), []);
  });
});
