/**
 * CHAINVISOR_RESTART_ON_FAILURE / CHAINVISOR_RESTART_MAX with real processes: a node that keeps
 * exiting 3 runs 1 + MAX times and chainvisor exits 3; each exit is a `node-exited` event with the
 * restart count; a stop signal during the wait ends chainvisor at once; a crash right after an
 * upgrade is logged loudly.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { loadConfig } from '../../src/config/index.js';
import { layoutFor } from '../../src/home/layout/index.js';
import { createEventBus, type SupervisorEvent } from '../../src/shared/events/index.js';
import { createLogger } from '../../src/shared/log.js';
import { Supervisor } from '../../src/supervisor/index.js';
import { plan } from '../support/fake-node.js';
import { makeHome, type TestHome, waitFor } from '../support/home.js';

describe('chainvisor run: restart policy', () => {
  let t: TestHome;
  beforeEach(async () => {
    t = await makeHome({ DAEMON_GRPC_ADDRESS: '127.0.0.1:1' });
  });
  afterEach(async () => {
    await t.cleanup();
  });

  const starts = async (label: string) => (await t.journalLines()).filter((l) => l.startsWith(`${label} start`)).length;

  test('default (off): a node exiting 3 runs once and chainvisor exits 3', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 100, exitCode: 3 })]);
    const r = await t.spawn(['run', 'start']);
    assert.equal(r.exitCode, 3, r.all);
    assert.equal(await starts('genesis'), 1);
  });

  test('on: a node that keeps exiting 3 runs 1 + MAX times, then chainvisor exits 3', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 100, exitCode: 3 })]);
    const r = await t.spawn(['run', 'start'], { CHAINVISOR_RESTART_ON_FAILURE: 'true', CHAINVISOR_RESTART_MAX: '3', CHAINVISOR_RESTART_BACKOFF: '50ms' });
    assert.equal(r.exitCode, 3, r.all);
    assert.equal(await starts('genesis'), 4);
    assert.match(r.all ?? '', /restart 3 of 3/);
  });

  test('a stop signal during the backoff wait ends chainvisor promptly', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 100, exitCode: 3 })]);
    const run = t.spawn(['run', 'start'], { CHAINVISOR_RESTART_ON_FAILURE: 'true', CHAINVISOR_RESTART_BACKOFF: '10m' });
    await waitFor(async () => (await t.journalLines()).includes('genesis exit 3'), 'the first exit');
    await sleep(300); // let it enter the wait
    const asked = Date.now();
    run.kill('SIGTERM');
    const r = await run;
    assert.equal(r.exitCode, 143, r.all);
    assert.ok(Date.now() - asked < 10_000, 'ended during the 10-minute wait');
    assert.equal(await starts('genesis'), 1);
  });

  test('each exit is a node-exited event with {code, signal, restarts}; a crash right after an upgrade is logged loudly', async () => {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'exit' } });
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v2', await t.fakeNode({ label: 'v2', runMs: 100, exitCode: 3, preUpgrade: [0] })]);
    const { config } = loadConfig({
      env: { ...t.env, CHAINVISOR_RESTART_ON_FAILURE: 'true', CHAINVISOR_RESTART_MAX: '2', CHAINVISOR_RESTART_BACKOFF: '20ms' },
    });
    const events = createEventBus();
    const seen: SupervisorEvent[] = [];
    events.on((e) => seen.push(e));
    const lines: string[] = [];
    const logger = createLogger({ pretty: false, fd: 2 });
    const original = logger.error.bind(logger);
    logger.error = (...args: Parameters<typeof logger.error>) => {
      lines.push(JSON.stringify(args));
      return original(...args);
    };
    const supervisor = new Supervisor({ config, layout: layoutFor(config), args: ['start'], logger, events });
    // The fake nodes find the home in their environment, inherited from this process.
    const saved = process.env.DAEMON_HOME;
    process.env.DAEMON_HOME = t.home;
    const code = await supervisor.run().finally(() => {
      if (saved === undefined) delete process.env.DAEMON_HOME;
      else process.env.DAEMON_HOME = saved;
    });
    assert.equal(code, 3);
    const exited = seen.filter((e) => e.event === 'node-exited').map((e) => e.data);
    assert.deepEqual(
      exited.map((d) => [d?.code, d?.signal, d?.restarts, d?.afterUpgrade]),
      [
        [3, undefined, 1, 'v2'],
        [3, undefined, 2, 'v2'],
        [3, undefined, 2, 'v2'],
      ],
    );
    assert.ok(
      lines.some((l) => l.includes('CRASH AFTER UPGRADE')),
      lines.join('\n'),
    );
  });
});
