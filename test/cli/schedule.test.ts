/**
 * Queuing checks with a stand-in for the node's gRPC answers (the e2e tests ask the simulated node):
 * all entries are checked together and a refusal changes nothing, neither the queue nor the binaries.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { type ChainClient, ChainUnavailableError } from '../../src/chain/index.js';
import { scheduleUpgrades } from '../../src/cli/schedule.js';
import { loadConfig } from '../../src/config/index.js';
import { layoutFor } from '../../src/home/layout/index.js';
import { readQueued } from '../../src/watcher/manual/index.js';

function chainAt(height: number, plan: { name: string; height: number } | null = null): ChainClient {
  return {
    address: 'test',
    describe: () => 'the test node',
    latestHeight: async () => height,
    currentPlan: async () => (plan ? { ...plan, info: '' } : null),
    query: () => Promise.reject(new Error('no query is asked')),
    close() {},
  };
}
const down: ChainClient = {
  address: 'test',
  describe: () => 'the test node',
  latestHeight: async () => {
    throw new ChainUnavailableError('test', 'the latest block height', new Error('connection refused'));
  },
  currentPlan: async () => null,
  query: () => Promise.reject(new Error('no query is asked')),
  close() {},
};

async function setup(t: TestContext) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'batch-schedule-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const home = path.join(root, 'home');
  await mkdir(home);
  const bin = (name: string) => path.join(root, name);
  for (const name of ['v2', 'v3', 'v4']) await writeFile(bin(name), '#!/bin/sh\n', { mode: 0o755 });
  const { config } = loadConfig({ env: { DAEMON_HOME: home, DAEMON_NAME: 'simd' } });
  const layout = layoutFor(config);
  const installed = (name: string) =>
    stat(path.join(home, 'cosmovisor', 'upgrades', name, 'bin', 'simd')).then(
      () => true,
      () => false,
    );
  return { config, layout, bin, installed };
}

test('queues above the current height and installs the binaries', async (t) => {
  const { config, layout, bin, installed } = await setup(t);
  const r = await scheduleUpgrades({
    config,
    layout,
    force: false,
    chain: chainAt(10),
    entries: [
      { name: 'v3', source: bin('v3'), height: 200, info: '' },
      { name: 'v2', source: bin('v2'), height: 100, info: '' },
    ],
  });
  assert.deepEqual(r.chain, { height: 10 });
  assert.deepEqual(
    (await readQueued(layout)).map((p) => [p.name, p.height]),
    [
      ['v2', 100],
      ['v3', 200],
    ],
  );
  assert.ok(await installed('v2'));
  assert.ok(await installed('v3'));
});

test("a height not above the node's refuses the whole batch, and nothing changes", async (t) => {
  const { config, layout, bin, installed } = await setup(t);
  await scheduleUpgrades({ config, layout, force: false, chain: chainAt(10), entries: [{ name: 'v2', source: bin('v2'), height: 100, info: '' }] });
  const before = await readFile(layout.batchFile, 'utf8');
  await assert.rejects(
    scheduleUpgrades({
      config,
      layout,
      force: false,
      chain: chainAt(150),
      entries: [
        { name: 'v3', source: bin('v3'), height: 300, info: '' },
        { name: 'v4', source: bin('v4'), height: 150, info: '' },
      ],
    }),
    (e: Error & { code?: string; exitCode?: number }) => e.code === 'CHAINVISOR_BATCH_REFUSED' && e.exitCode === 64 && /already at height 150/.test(e.message),
  );
  assert.equal(await readFile(layout.batchFile, 'utf8'), before);
  assert.equal(await installed('v3'), false);
});

test('clashes with the queue (same name or same height) and with a governance plan are refused', async (t) => {
  const { config, layout, bin } = await setup(t);
  await scheduleUpgrades({ config, layout, force: false, chain: chainAt(10), entries: [{ name: 'v2', source: bin('v2'), height: 100, info: '' }] });
  await assert.rejects(
    scheduleUpgrades({ config, layout, force: false, chain: chainAt(10), entries: [{ name: 'v3', source: bin('v3'), height: 100, info: '' }] }),
    /height 100 already has the queued upgrade "v2"/,
  );
  await assert.rejects(
    scheduleUpgrades({ config, layout, force: false, chain: chainAt(10), entries: [{ name: 'V2', source: bin('v3'), height: 120, info: '' }] }),
    /"v2" is already queued/,
  );
  await assert.rejects(
    scheduleUpgrades({
      config,
      layout,
      force: false,
      chain: chainAt(10, { name: 'gov1', height: 300 }),
      entries: [{ name: 'v4', source: bin('v4'), height: 300, info: '' }],
    }),
    /governance already plans upgrade "gov1" at that height/,
  );
  // --force replaces the entry of the same name (and its binary).
  await scheduleUpgrades({ config, layout, force: true, chain: chainAt(10), entries: [{ name: 'v2', source: bin('v3'), height: 120, info: '' }] });
  assert.deepEqual(
    (await readQueued(layout)).map((p) => [p.name, p.height]),
    [['v2', 120]],
  );
});

test('node not reachable: accepted, and the result says the heights were not checked', async (t) => {
  const { config, layout, bin } = await setup(t);
  const r = await scheduleUpgrades({ config, layout, force: false, chain: down, entries: [{ name: 'v2', source: bin('v2'), height: 5, info: '' }] });
  assert.ok('unavailable' in r.chain && /connection refused/.test(r.chain.unavailable));
  assert.equal((await readQueued(layout)).length, 1);
});

test('a missing binary, and a JSON entry with nothing installed, are refused', async (t) => {
  const { config, layout, bin } = await setup(t);
  await assert.rejects(
    scheduleUpgrades({
      config,
      layout,
      force: false,
      chain: chainAt(1),
      entries: [
        { name: 'v2', source: bin('nope'), height: 50, info: '' },
        { name: 'v3', height: 60, info: '' },
      ],
    }),
    (e: Error) => /no file at/.test(e.message) && /"v3": no binary installed/.test(e.message),
  );
  await assert.rejects(readFile(layout.batchFile), /ENOENT/);
});

test('a binary installed earlier is queued as it is when identical, refused when different', async (t) => {
  const { config, layout, bin } = await setup(t);
  await mkdir(path.join(layout.upgradesDir, 'v2', 'bin'), { recursive: true });
  await writeFile(path.join(layout.upgradesDir, 'v2', 'bin', 'simd'), await readFile(bin('v2')), { mode: 0o755 });
  await scheduleUpgrades({ config, layout, force: false, chain: chainAt(1), entries: [{ name: 'v2', source: bin('v2'), height: 50, info: '' }] });
  await writeFile(bin('other'), '#!/bin/sh\necho other\n', { mode: 0o755 });
  await assert.rejects(
    scheduleUpgrades({
      config,
      layout,
      force: false,
      chain: chainAt(1),
      entries: [
        { name: 'v3', source: bin('v3'), height: 60, info: '' },
        { name: 'v2', source: bin('other'), height: 70, info: '' },
      ],
    }),
    /a different binary is already installed/,
  );
  assert.deepEqual(
    (await readQueued(layout)).map((p) => p.name),
    ['v2'],
  );
});
