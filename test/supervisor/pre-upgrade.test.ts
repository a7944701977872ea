import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { plan } from '../support/fake-node.js';
import { makeHome, type TestHome } from '../support/home.js';

describe('chainvisor run: pre-upgrade', () => {
  let t: TestHome;
  beforeEach(async () => {
    t = await makeHome();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  async function setup(preUpgrade: number[]) {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'exit' } });
    const v2 = await t.fakeNode({ label: 'v2', runMs: 10, preUpgrade });
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v2', v2]);
  }

  for (const code of [0, 1]) {
    test(`pre-upgrade exit ${code} counts as success`, async () => {
      await setup([code]);
      const r = await t.cli(['run', 'start']);
      assert.equal(r.exitCode, 0, r.stderr);
      assert.equal(await t.current(), 'upgrades/v2');
      assert.ok((await t.journalLines()).includes('v2 start [start]'));
    });
  }

  test('pre-upgrade exit 30 fails the upgrade: exit 80, current unchanged, the new binary never started', async () => {
    await setup([30]);
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 80);
    assert.match(r.stderr, /pre-upgrade failed: it exited 30 \(failed\); nothing was switched/);
    assert.equal(await t.current(), 'genesis');
    assert.ok(!(await t.journalLines()).includes('v2 start [start]'));
    // The new link made ahead of the switch is gone with it: nothing but `current` and the layout.
    const root = path.join(t.home, 'cosmovisor');
    assert.deepEqual(
      (await fs.readdir(root)).filter((name) => name.startsWith('.current')),
      [],
    );
    assert.equal((await fs.readlink(path.join(root, 'current'))).replace(/\/$/, ''), 'genesis');
  });

  test('pre-upgrade exit 31 is retried up to DAEMON_PREUPGRADE_MAX_RETRIES', async () => {
    await setup([31, 31, 0]);
    const r = await t.cli(['run', 'start'], { DAEMON_PREUPGRADE_MAX_RETRIES: '2' });
    assert.equal(r.exitCode, 0, r.stderr);
    const pre = (await t.journalLines()).filter((l) => l.startsWith('v2 pre-upgrade'));
    assert.deepEqual(pre, ['v2 pre-upgrade 31', 'v2 pre-upgrade 31', 'v2 pre-upgrade 0']);
    assert.equal(await t.current(), 'upgrades/v2');
  });

  test('pre-upgrade exit 31 beyond the retries fails', async () => {
    await setup([31]);
    const r = await t.cli(['run', 'start'], { DAEMON_PREUPGRADE_MAX_RETRIES: '1' });
    assert.equal(r.exitCode, 80);
    assert.match(r.stderr, /exited 31 \(retry\) 2 times, more than DAEMON_PREUPGRADE_MAX_RETRIES=1 allows/);
    assert.equal((await t.journalLines()).filter((l) => l.startsWith('v2 pre-upgrade')).length, 2);
    assert.equal(await t.current(), 'genesis');
  });

  test('an exit code outside the contract fails (cosmovisor took it for success)', async () => {
    await setup([2]);
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 80);
    assert.match(r.stderr, /it exited 2, which is not a code of the pre-upgrade contract/);
    assert.equal(await t.current(), 'genesis');
  });

  test('after a failed pre-upgrade, starting again applies the upgrade at start-up', async () => {
    await setup([30, 0]);
    assert.equal((await t.cli(['run', 'start'])).exitCode, 80);
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.match(r.stderr, /an upgrade is already due at start-up/);
    const lines = await t.journalLines();
    assert.equal(lines.filter((l) => l === 'genesis start [start]').length, 1, 'the old binary did not run again');
    assert.equal(lines.at(-2), 'v2 start [start]');
  });

  test('the custom pre-upgrade script runs with name and height in $DAEMON_HOME before the switch', async () => {
    await setup([0]);
    const script = path.join(t.home, 'cosmovisor', 'prepare.sh');
    const out = path.join(t.root, 'custom.txt');
    await fs.writeFile(script, `#!/bin/sh\necho "$1 $2 $(pwd) $(readlink cosmovisor/current)" > '${out}'\n`, { mode: 0o755 });
    const r = await t.cli(['run', 'start'], { COSMOVISOR_CUSTOM_PREUPGRADE: 'prepare.sh' });
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal((await fs.readFile(out, 'utf8')).trim(), `v2 10 ${t.home} genesis`);
    assert.equal(await t.current(), 'upgrades/v2');
  });

  test('a missing custom pre-upgrade script fails the upgrade with a clear message', async () => {
    await setup([0]);
    const r = await t.cli(['run', 'start'], { COSMOVISOR_CUSTOM_PREUPGRADE: 'nope.sh' });
    assert.equal(r.exitCode, 80);
    assert.match(r.stderr, /custom pre-upgrade script .*nope\.sh failed for upgrade "v2": the script does not exist/);
    assert.equal(await t.current(), 'genesis');
  });

  test('a failing custom pre-upgrade script fails the upgrade', async () => {
    await setup([0]);
    await fs.writeFile(path.join(t.home, 'cosmovisor', 'fail.sh'), '#!/bin/sh\nexit 4\n', { mode: 0o755 });
    const r = await t.cli(['run', 'start'], { COSMOVISOR_CUSTOM_PREUPGRADE: 'fail.sh' });
    assert.equal(r.exitCode, 80);
    assert.match(r.stderr, /it exited with code 4; nothing was switched/);
    assert.equal(await t.current(), 'genesis');
    assert.ok(!(await t.journalLines()).some((l) => l.startsWith('v2')), 'the new binary was not touched');
  });

  test('a custom pre-upgrade script without the execute bit gets u+x, runs, and the log says so', async () => {
    await setup([0]);
    const script = path.join(t.home, 'cosmovisor', 'noexec.sh');
    const out = path.join(t.root, 'noexec.txt');
    await fs.writeFile(script, `#!/bin/sh\necho "$1 $2" > '${out}'\n`, { mode: 0o644 });
    const r = await t.cli(['run', 'start'], { COSMOVISOR_CUSTOM_PREUPGRADE: 'noexec.sh', CHAINVISOR_LOG_FORMAT: 'json' });
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal((await fs.readFile(out, 'utf8')).trim(), 'v2 10');
    assert.equal((await fs.stat(script)).mode & 0o100, 0o100);
    assert.match(r.stderr, /was not executable: added the execute bit \(u\+x\)/);
    assert.equal(await t.current(), 'upgrades/v2');
  });

  test("pre-upgrade's and the custom script's output go to chainvisor's log, never to stdout", async () => {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'exit' } });
    await t.cliOk(['init', genesis]);
    const v2 = path.join(t.binDir, 'v2-noisy');
    await fs.writeFile(
      v2,
      // A 1 MiB line (no newline until its end) is logged cut, in one line of the log.
      '#!/bin/sh\nif [ "$1" = pre-upgrade ]; then echo PRE-UPGRADE-OUT; echo PRE-UPGRADE-ERR >&2; head -c 1048576 /dev/zero | tr \'\\0\' x; echo; exit 0; fi\necho NODE-V2-OUT\nexit 0\n',
      { mode: 0o755 },
    );
    await t.cliOk(['add-upgrade', 'v2', v2]);
    await fs.writeFile(path.join(t.home, 'cosmovisor', 'custom.sh'), '#!/bin/sh\necho CUSTOM-OUT "$1"\necho CUSTOM-ERR >&2\n', { mode: 0o755 });
    const r = await t.cli(['run', 'start'], { COSMOVISOR_CUSTOM_PREUPGRADE: 'custom.sh', CHAINVISOR_LOG_FORMAT: 'json' });
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'NODE-V2-OUT', 'stdout carries the node output only');
    const logged = r.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; source?: string; stream?: string });
    const lines = logged.filter((l) => l.source !== undefined).map((l) => `${l.source}/${l.stream}: ${l.msg}`);
    assert.deepEqual(lines.sort(), [
      'custom-pre-upgrade/stderr: CUSTOM-ERR',
      'custom-pre-upgrade/stdout: CUSTOM-OUT v2',
      'pre-upgrade/stderr: PRE-UPGRADE-ERR',
      'pre-upgrade/stdout: PRE-UPGRADE-OUT',
      `pre-upgrade/stdout: ${'x'.repeat(8192)}… (1048576 characters, cut)`,
    ]);
  });
});
