/**
 * A node whose gRPC does not answer (many validators turn it off): the plan watch backs off to
 * CHAINVISOR_PLAN_POLL_INTERVAL instead of asking every second for ever, and says once what that costs.
 * The client is the real one, pointed at a loopback port where nothing listens.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { pino } from 'pino';

import { createChainReader, createGrpcClient, resolveChainAddresses } from '../../src/chain/index.js';
import { loadConfig } from '../../src/config/index.js';
import { layoutFor, readCurrent } from '../../src/home/layout/index.js';
import { createEventBus } from '../../src/shared/events/index.js';
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
      /no answer from the node's gRPC at 127\.0\.0\.1:\d+ since the node started 1 s ago: .*nobody is warned when its height nears/,
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
