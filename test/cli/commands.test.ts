import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { makeHome, type TestHome } from '../support/home.js';

describe('chainvisor commands', () => {
  let t: TestHome;
  beforeEach(async () => {
    t = await makeHome();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  test('init creates the layout with a relative current link, and is safe to run twice', async () => {
    const bin = await t.fakeNode({ label: 'genesis', version: 'v1.0.0' });
    const first = await t.cli(['init', bin]);
    assert.equal(first.exitCode, 0, first.stderr);
    const installed = path.join(t.home, 'cosmovisor/genesis/bin/simd');
    assert.equal(await fs.readFile(installed, 'utf8'), await fs.readFile(bin, 'utf8'));
    assert.equal((await fs.stat(installed)).mode & 0o755, 0o755);
    assert.equal(await t.current(), 'genesis');
    assert.ok((await fs.stat(path.join(t.home, 'cosmovisor/upgrades'))).isDirectory());

    const second = await t.cli(['init', bin]);
    assert.equal(second.exitCode, 0, second.stderr);
    assert.match(second.stdout, /already installed/);

    const other = await t.fakeNode({ label: 'other' });
    const refused = await t.cli(['init', other]);
    // 78, not 64: the command line is right, the home holds another binary.
    assert.equal(refused.exitCode, 78);
    assert.match(refused.stderr, /a different genesis binary is already installed/);
    assert.match(refused.stderr, /hint: pass --force/);
    assert.equal((await t.cli(['init', other, '--force'])).exitCode, 0);
    assert.equal(await fs.readFile(installed, 'utf8'), await fs.readFile(other, 'utf8'));
  });

  test('init never resets a current link that already points at an upgrade', async () => {
    const bin = await t.fakeNode({ label: 'genesis' });
    await t.cliOk(['init', bin]);
    await t.cliOk(['add-upgrade', 'v2', bin]);
    await fs.rm(path.join(t.home, 'cosmovisor/current'));
    await fs.symlink('upgrades/v2', path.join(t.home, 'cosmovisor/current'));
    const r = await t.cli(['init', bin]);
    assert.equal(r.exitCode, 0);
    assert.equal(await t.current(), 'upgrades/v2');
  });

  test('init errors: missing file, a folder, no argument', async () => {
    const missing = await t.cli(['init', path.join(t.root, 'nope')]);
    assert.equal(missing.exitCode, 64);
    assert.match(missing.stderr, /error: no file at .*nope/);
    const folder = await t.cli(['init', t.root]);
    assert.equal(folder.exitCode, 64);
    assert.match(folder.stderr, /is a folder/);
    const none = await t.cli(['init']);
    assert.equal(none.exitCode, 64);
    assert.match(none.stderr, /init needs the path of the node binary/);
  });

  test('a relative or missing DAEMON_HOME is a configuration error (78), every problem reported at once', async () => {
    const bin = await t.fakeNode({ label: 'genesis' });
    const relative = await t.cli(['init', bin], { DAEMON_HOME: 'relative/home' });
    assert.equal(relative.exitCode, 78);
    assert.match(relative.stderr, /DAEMON_HOME="relative\/home": expected an absolute path/);

    const r = await t.cli(['run', 'start'], {
      DAEMON_HOME: '',
      DAEMON_NAME: 'a/b',
      DAEMON_POLL_INTERVAL: '300',
      DAEMON_RESTART_AFTER_UPGRADE: 'yes',
      DAEMON_PREUPGRADE_MAX_RETRIES: '-1',
      CHAINVISOR_WATCH: 'inotify',
    });
    assert.equal(r.exitCode, 78);
    assert.match(r.stderr, /invalid configuration \(6 problems\)/);
    assert.match(r.stderr, /DAEMON_HOME: is required/);
    assert.match(r.stderr, /DAEMON_NAME="a\/b": expected a file name without folders/);
    assert.match(r.stderr, /DAEMON_POLL_INTERVAL="300": a duration needs a unit, for example "300ms"/);
    assert.match(r.stderr, /DAEMON_RESTART_AFTER_UPGRADE="yes": expected true or false/);
    assert.match(r.stderr, /DAEMON_PREUPGRADE_MAX_RETRIES="-1": expected a whole number/);
    assert.match(r.stderr, /CHAINVISOR_WATCH="inotify": expected one of: auto, poll/);
  });

  test('a config file supplies settings; the environment overrides it; its problems are named with the file', async () => {
    const file = path.join(t.root, 'chainvisor.json');
    await fs.writeFile(file, JSON.stringify({ daemon_home: t.home, daemon_name: 'filed', daemon_poll_interval: '1s', daemon_restart_delay: 5 }));
    const env = { DAEMON_HOME: '', DAEMON_NAME: '', UNSAFE_SKIP_BACKUP: '' };
    const bad = await t.cli(['--config', file, 'config'], env);
    assert.equal(bad.exitCode, 78);
    assert.match(bad.stderr, /daemon_restart_delay in .*chainvisor\.json="5": a duration needs a unit/);

    await fs.writeFile(file, JSON.stringify({ daemon_home: t.home, daemon_name: 'filed', daemon_poll_interval: '1s', unsafe_skip_backup: true }));
    await fs.mkdir(path.join(t.home, 'cosmovisor'));
    const ok = await t.cli(['config'], { ...env, CHAINVISOR_CONFIG: file, DAEMON_POLL_INTERVAL: '50ms' });
    assert.equal(ok.exitCode, 0, ok.stderr);
    assert.match(ok.stdout, /DAEMON_NAME +filed +\[file /);
    assert.match(ok.stdout, /DAEMON_POLL_INTERVAL +50ms +\[env\]/);
    assert.match(ok.stdout, /UNSAFE_SKIP_BACKUP +true +\[file /);
    assert.match(ok.stdout, /running binary +.*genesis\/bin\/filed/);

    await fs.writeFile(file, JSON.stringify({ daemon_hom: '/x' }));
    const unknown = await t.cli(['--config', file, 'config'], env);
    assert.equal(unknown.exitCode, 78);
    assert.match(unknown.stderr, /daemon_hom in .*: unknown setting/);
    assert.match(unknown.stderr, /DAEMON_HOME: is required/);
  });

  test('add-upgrade installs by folder name; the same binary again is a no-op; a different one is refused (78) without --force', async () => {
    const bin = await t.fakeNode({ label: 'v2' });
    const r = await t.cli(['add-upgrade', 'V2.0', bin]);
    assert.equal(r.exitCode, 0, r.stderr);
    const dest = path.join(t.home, 'cosmovisor/upgrades/v2.0/bin/simd');
    assert.equal((await fs.stat(dest)).mode & 0o111, 0o111);
    // An Ansible re-run: the same bytes (another copy of them) are already installed.
    const copy = path.join(t.root, 'copy-of-v2');
    await fs.copyFile(bin, copy);
    const again = await t.cli(['add-upgrade', 'V2.0', copy]);
    assert.equal(again.exitCode, 0, again.stderr);
    assert.match(again.stdout, /^upgrade "V2\.0": the same binary is already installed as .*v2\.0\/bin\/simd; nothing changed$/m);
    const other = await t.fakeNode({ label: 'v2-rebuilt' });
    const refused = await t.cli(['add-upgrade', 'V2.0', other]);
    assert.equal(refused.exitCode, 78, refused.stderr);
    assert.match(refused.stderr, /a different binary is already installed for upgrade "V2\.0" at .*hint: pass --force/s);
    assert.match(refused.stderr, /code: CHAINVISOR_ALREADY_INSTALLED/);
    assert.equal(await fs.readFile(dest, 'utf8'), await fs.readFile(bin, 'utf8'), 'left as it was');
    assert.equal((await t.cli(['add-upgrade', 'V2.0', other, '--force'])).exitCode, 0);
    assert.equal(await fs.readFile(dest, 'utf8'), await fs.readFile(other, 'utf8'));
    const dots = await t.cli(['add-upgrade', '..', bin]);
    assert.equal(dots.exitCode, 79);
    assert.match(dots.stderr, /the upgrade name "\.\." cannot be used as a folder name/);
  });

  test('version prints both versions, as text and as JSON', async () => {
    const bin = await t.fakeNode({ label: 'genesis', version: '{"name":"sim","version":"1.2.3"}' });
    await t.cliOk(['init', bin]);
    const text = await t.cli(['version']);
    assert.equal(text.exitCode, 0, text.stderr);
    assert.match(text.stdout, /^chainvisor version: \d+\.\d+\.\d+\napp version: /);
    const json = await t.cli(['version', '--output', 'json']);
    assert.equal(json.exitCode, 0, json.stderr);
    const parsed = JSON.parse(json.stdout) as { chainvisor_version: string; app_version: unknown };
    assert.match(parsed.chainvisor_version, /^\d+\.\d+\.\d+$/);
    assert.deepEqual(parsed.app_version, { name: 'sim', version: '1.2.3' });
  });

  test('show-upgrade-info on genesis explains that no upgrade was applied', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const r = await t.cli(['show-upgrade-info']);
    assert.equal(r.exitCode, 1);
    assert.match(r.stderr, /no upgrade has been applied yet: current points at genesis/);
  });

  test('help lists the commands; <command> --help answers; unknown commands are usage errors', async () => {
    const help = await t.cli(['help']);
    assert.equal(help.exitCode, 0);
    for (const name of ['init', 'run', 'add-upgrade', 'show-upgrade-info', 'version', 'config']) {
      assert.match(help.stdout, new RegExp(`^  ${name} `, 'm'));
    }
    const initHelp = await t.cli(['init', '--help']);
    assert.equal(initHelp.exitCode, 0);
    assert.match(initHelp.stdout, /Usage: chainvisor init <path-to-binary>/);
    const unknown = await t.cli(['frobnicate']);
    assert.equal(unknown.exitCode, 64);
    assert.match(unknown.stderr, /unknown command "frobnicate"/);
  });

  test('status of a DAEMON_HOME that does not exist says so and exits 78, as config and run do', async () => {
    const missing = path.join(t.root, 'no-such-home');
    for (const args of [['status'], ['status', '--output', 'json'], ['config']]) {
      const r = await t.cli(args, { DAEMON_HOME: missing });
      assert.equal(r.exitCode, 78, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.equal(r.stdout, '', 'no plausible status');
      assert.match(r.stderr, new RegExp(`DAEMON_HOME \\(${missing}\\) does not exist`));
      assert.match(r.stderr, /code: CHAINVISOR_HOME_MISSING/);
    }
  });

  test('status says "1 block left", not "1 blocks left"', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    // The live state a `run` keeps, as this (live) process's: status trusts it while its pid is alive.
    const live = {
      chainvisor: { pid: process.pid, since: new Date().toISOString(), version: '0', http: null },
      node: { pid: null, state: 'running', since: null, restarts: 0, lastExit: null },
      pending: { name: 'v2', height: 101, source: 'chain' },
      chainHeight: 100,
      lastUpgrade: null,
      backups: [],
      activity: null,
      afterUpgrade: null,
      twinCheck: null,
      updated: new Date().toISOString(),
    };
    await fs.mkdir(path.join(t.home, 'cosmovisor/.chainvisor'), { recursive: true });
    await fs.writeFile(path.join(t.home, 'cosmovisor/.chainvisor/status.json'), JSON.stringify({ live }));
    const r = await t.cli(['status']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.match(r.stdout, /v2 at height 101 \(from chain\), 1 block left,/);
    assert.doesNotMatch(r.stdout, /1 blocks/);
  });

  test('run without an initialised home says what to do', async () => {
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 78);
    assert.match(r.stderr, /\$DAEMON_HOME\/cosmovisor \(.*\/cosmovisor\) does not exist/);
    assert.match(r.stderr, /hint: .*chainvisor init <path-to-genesis-binary>/);

    await fs.mkdir(path.join(t.home, 'cosmovisor'));
    const noBinary = await t.cli(['run', 'start']);
    assert.equal(noBinary.exitCode, 78);
    assert.match(noBinary.stderr, /no node binary at .*genesis\/bin\/simd/);
    assert.match(noBinary.stderr, /hint: run 'chainvisor init <path-to-binary>' first/);
  });
});
