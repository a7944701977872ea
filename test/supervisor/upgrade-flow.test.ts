import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { plan } from '../support/fake-node.js';
import { makeHome, type TestHome, waitFor } from '../support/home.js';

describe('chainvisor run: upgrades', () => {
  let t: TestHome;
  beforeEach(async () => {
    t = await makeHome();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  test('genesis → v2 → v3, node exits after writing the plan, arguments passed through verbatim', async () => {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'exit' } });
    const v2 = await t.fakeNode({ label: 'v2', halt: { plan: plan('v3', 20), style: 'exit' } });
    const v3 = await t.fakeNode({ label: 'v3', runMs: 50, exitCode: 7 });
    assert.equal((await t.cli(['init', genesis])).exitCode, 0);
    assert.equal((await t.cli(['add-upgrade', 'v2', v2])).exitCode, 0);
    assert.equal((await t.cli(['add-upgrade', 'v3', v3])).exitCode, 0);

    const args = ['start', '--home', t.home, '--moniker=my node', 'two words', '', '--x=a=b'];
    const r = await t.cli(['run', ...args]);

    assert.equal(r.exitCode, 7, `chainvisor exits with the last node's code; stderr:\n${r.stderr}`);
    const passed = ` [start] [--home] [${t.home}] [--moniker=my node] [two words] [] [--x=a=b]`;
    assert.deepEqual(await t.journalLines(), [
      `genesis start${passed}`,
      'genesis halted',
      'v2 pre-upgrade 1',
      `v2 start${passed}`,
      'v2 halted',
      'v3 pre-upgrade 1',
      `v3 start${passed}`,
      'v3 exit 7',
    ]);
    assert.equal(await t.current(), 'upgrades/v3', 'current is a relative link to the last upgrade');
    const record = JSON.parse(await fs.readFile(path.join(t.home, 'cosmovisor/upgrades/v3/upgrade-info.json'), 'utf8'));
    assert.deepEqual(record, plan('v3', 20), 'the plan is recorded beside the binary');
    assert.match((await t.cli(['show-upgrade-info'])).stdout, /"name":"v3"/);
  });

  test('node that stays up after writing the plan is stopped and upgraded', async () => {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'stay' } });
    const v2 = await t.fakeNode({ label: 'v2', runMs: 50, exitCode: 0 });
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v2', v2]);
    const r = await t.cli(['run', 'start'], { DAEMON_SHUTDOWN_GRACE: '5s' });
    assert.equal(r.exitCode, 0, r.stderr);
    assert.deepEqual(await t.journalLines(), [
      'genesis start [start]',
      'genesis halted',
      'genesis got TERM',
      'v2 pre-upgrade 1',
      'v2 start [start]',
      'v2 exit 0',
    ]);
  });

  test('a node that ignores SIGTERM is killed after DAEMON_SHUTDOWN_GRACE', async () => {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'stay' }, ignoreTerm: true });
    const v2 = await t.fakeNode({ label: 'v2', runMs: 10, exitCode: 0 });
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v2', v2]);
    const started = Date.now();
    const r = await t.cli(['run', 'start'], { DAEMON_SHUTDOWN_GRACE: '700ms' });
    const elapsed = Date.now() - started;
    assert.equal(r.exitCode, 0, r.stderr);
    const lines = await t.journalLines();
    assert.ok(lines.includes('genesis got TERM (ignored)'), lines.join('\n'));
    assert.ok(lines.includes('v2 start [start]'), lines.join('\n'));
    assert.ok(elapsed >= 700, `the grace period was waited (${elapsed} ms)`);
    assert.match(r.stderr, /still running after DAEMON_SHUTDOWN_GRACE; sending SIGKILL/);
  });

  test('DAEMON_RESTART_DELAY is waited between the stop and the upgrade', async () => {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'exit', afterMs: 0 } });
    const v2 = await t.fakeNode({ label: 'v2', runMs: 10 });
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v2', v2]);
    const r = await t.cli(['run', 'start'], { DAEMON_RESTART_DELAY: '1s' });
    assert.equal(r.exitCode, 0, r.stderr);
    const logs = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; time: number; event?: string });
    // The plan is seen either as the node exits or, when the watcher is first, just before: one upgrade-detected either way.
    const halted = logs.find((l) => l.event === 'upgrade-detected');
    const restarted = logs.filter((l) => l.msg === 'starting node')[1];
    assert.ok(halted && restarted, r.stderr);
    assert.ok(restarted.time - halted.time >= 1000, `restart came ${restarted.time - halted.time} ms after the halt`);
  });

  test('a binary installed during DAEMON_RESTART_DELAY is used (the look at it taken while the node stopped is not final)', async () => {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'stay' } });
    const v2 = await t.fakeNode({ label: 'v2', runMs: 10 });
    await t.cliOk(['init', genesis]);
    // A delay with room for add-upgrade's process on a loaded machine.
    const run = t.spawn(['run', 'start'], { DAEMON_RESTART_DELAY: '6s' });
    let stderr = '';
    run.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await waitFor(() => stderr.includes('waiting DAEMON_RESTART_DELAY'), 'the restart delay to begin');
    await t.cliOk(['add-upgrade', 'v2', v2]);
    const r = await run;
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(await t.current(), 'upgrades/v2');
    assert.ok((await t.journalLines()).includes('v2 start [start]'));
  });

  test('DAEMON_RESTART_AFTER_UPGRADE=false switches and exits 0 without starting the new binary', async () => {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'exit' } });
    const v2 = await t.fakeNode({ label: 'v2', runMs: 10 });
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v2', v2]);
    const r = await t.cli(['run', 'start'], { DAEMON_RESTART_AFTER_UPGRADE: 'false' });
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(await t.current(), 'upgrades/v2');
    assert.deepEqual(await t.journalLines(), ['genesis start [start]', 'genesis halted', 'v2 pre-upgrade 1']);
  });

  test('plan names are lower-cased into folder names, or kept with COSMOVISOR_DISABLE_RECASE', async () => {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('Big Upgrade', 10), style: 'exit' } });
    const v2 = await t.fakeNode({ label: 'v2', runMs: 10 });
    await t.cliOk(['init', genesis]);
    assert.equal((await t.cli(['add-upgrade', 'Big Upgrade', v2])).exitCode, 0);
    await fs.access(path.join(t.home, 'cosmovisor/upgrades/big%20upgrade/bin/simd'));
    assert.equal((await t.cli(['run', 'start'])).exitCode, 0);
    assert.equal(await t.current(), 'upgrades/big%20upgrade');

    const u = await makeHome({ COSMOVISOR_DISABLE_RECASE: 'true' });
    try {
      const g2 = await u.fakeNode({ label: 'genesis', halt: { plan: plan('Big Upgrade', 10), style: 'exit' } });
      const n2 = await u.fakeNode({ label: 'v2', runMs: 10 });
      await u.cliOk(['init', g2]);
      await u.cliOk(['add-upgrade', 'Big Upgrade', n2]);
      await fs.access(path.join(u.home, 'cosmovisor/upgrades/Big%20Upgrade/bin/simd'));
      const r = await u.cli(['run', 'start']);
      assert.equal(r.exitCode, 0, r.stderr);
      assert.equal(await u.current(), 'upgrades/Big%20Upgrade');
    } finally {
      await u.cleanup();
    }
  });

  test('a missing upgrade binary with download off: clear error, exit 79, current unchanged', async () => {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'exit' } });
    await t.cliOk(['init', genesis]);
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 79);
    assert.match(r.stderr, /upgrade "v2" at height 10 needs .*upgrades\/v2\/bin\/simd, which is not installed/);
    assert.match(r.stderr, /hint: install it with 'chainvisor add-upgrade v2/);
    assert.equal(await t.current(), 'genesis');
    await assert.rejects(fs.access(path.join(t.home, 'cosmovisor/upgrades/v2')));
  });

  test('heights in --unsafe-skip-upgrades are not switched', async () => {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'exit' } });
    const v2 = await t.fakeNode({ label: 'v2', runMs: 10 });
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v2', v2]);
    const r = await t.cli(['run', 'start', '--unsafe-skip-upgrades', '5', '10', '--other']);
    assert.equal(r.exitCode, 1, 'the node exit code is passed on');
    assert.match(r.stderr, /upgrade skipped: height 10 is listed in --unsafe-skip-upgrades/);
    assert.equal(await t.current(), 'genesis');
    assert.ok(!(await t.journalLines()).some((l) => l.startsWith('v2')));
  });

  test('the data folder is backed up before the upgrade unless skipped', async () => {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'exit' } });
    const v2 = await t.fakeNode({ label: 'v2', runMs: 10 });
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v2', v2]);
    await fs.mkdir(path.join(t.home, 'data/app.db'), { recursive: true });
    await fs.writeFile(path.join(t.home, 'data/app.db/000001.log'), 'state');
    const backups = path.join(t.root, 'backups');
    await fs.mkdir(backups);
    const r = await t.cli(['run', 'start'], { UNSAFE_SKIP_BACKUP: 'false', DAEMON_DATA_BACKUP_DIR: backups });
    assert.equal(r.exitCode, 0, r.stderr);
    const entries = await fs.readdir(backups);
    assert.equal(entries.length, 1, entries.join());
    assert.match(entries[0] as string, /^data-backup-\d{4}-\d{1,2}-\d{1,2}$/);
    assert.equal(await fs.readFile(path.join(backups, entries[0] as string, 'app.db/000001.log'), 'utf8'), 'state');
  });

  test('a line of 200 KB from the node arrives whole on stdout', async () => {
    const big = `${'x'.repeat(200 * 1024)}END`;
    const node = await t.fakeNode({ label: 'genesis', runMs: 0, exitCode: 0, onStart: `printf '%s\\n' '${big}'` });
    await t.cliOk(['init', node]);
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 0);
    assert.equal(r.stdout.trim(), big);
  });

  test('COSMOVISOR_DISABLE_LOGS silences chainvisor; logs otherwise go to stderr, never stdout', async () => {
    const node = await t.fakeNode({ label: 'genesis', runMs: 0, exitCode: 3, onStart: 'echo node-out; echo node-err >&2' });
    await t.cliOk(['init', node]);
    const loud = await t.cli(['run', 'start']);
    assert.equal(loud.exitCode, 3);
    assert.equal(loud.stdout.trim(), 'node-out');
    assert.match(loud.stderr, /"msg":"starting node"/);
    const quiet = await t.cli(['run', 'start'], { COSMOVISOR_DISABLE_LOGS: 'true' });
    assert.equal(quiet.exitCode, 3);
    assert.equal(quiet.stderr.trim(), 'node-err');
  });

  test('an upgrade in poll mode (CHAINVISOR_WATCH=poll) with a stay-up node', async () => {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'stay' } });
    const v2 = await t.fakeNode({ label: 'v2', runMs: 10 });
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v2', v2]);
    const r = await t.cli(['run', 'start'], { CHAINVISOR_WATCH: 'poll', DAEMON_POLL_INTERVAL: '100ms' });
    assert.equal(r.exitCode, 0, r.stderr);
    await waitFor(async () => (await t.journalLines()).includes('v2 start [start]'), 'v2 started');
  });
});
