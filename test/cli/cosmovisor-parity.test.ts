/**
 * cosmovisor parity, each case one of cosmovisor's own scenarios, run black-box against the real
 * `chainvisor` command: config.toml written by init and read by --cosmovisor-config, init's argument and
 * layout checks, `current` created at start, an uninitialised home refused, a relative backup folder
 * accepted when backups are skipped, impossible durations refused, an unknown config.toml key ignored.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { makeHome, type TestHome } from '../support/home.js';

describe('cosmovisor parity: configuration and init', () => {
  let t: TestHome;
  beforeEach(async () => {
    t = await makeHome();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  test("init writes cosmovisor's config.toml (its keys, order and format) and keeps an existing one", async () => {
    const bin = await t.fakeNode({ label: 'genesis' });
    const r = await t.cli(['init', bin], { DAEMON_SHUTDOWN_GRACE: '30s', DAEMON_POLL_INTERVAL: '' });
    assert.equal(r.exitCode, 0, r.stderr);
    const toml = path.join(t.home, 'cosmovisor', 'config.toml');
    assert.match(r.stdout, /cosmovisor config\.toml created at .*cosmovisor\/config\.toml/);
    const text = await fs.readFile(toml, 'utf8');
    assert.equal(
      text,
      [
        `daemon_home = '${t.home}'`,
        "daemon_name = 'simd'",
        'daemon_allow_download_binaries = false',
        'daemon_download_must_have_checksum = true',
        'daemon_restart_after_upgrade = true',
        'daemon_restart_delay = 0',
        'daemon_shutdown_grace = 30000000000',
        'daemon_poll_interval = 300000000',
        'unsafe_skip_backup = true',
        `daemon_data_backup_dir = '${t.home}'`,
        'daemon_preupgrade_max_retries = 0',
        "daemon_grpc_address = 'localhost:9090'",
        'cosmovisor_disable_logs = false',
        'cosmovisor_color_logs = true',
        "cosmovisor_timeformat_logs = 'kitchen'",
        "cosmovisor_custom_preupgrade = ''",
        'cosmovisor_disable_recase = false',
        '',
      ].join('\n'),
    );
    await fs.writeFile(toml, "daemon_name = 'kept'\n");
    const again = await t.cli(['init', bin]);
    assert.equal(again.exitCode, 0, again.stderr);
    assert.match(again.stdout, /config\.toml already exists; left as it is/);
    assert.equal(await fs.readFile(toml, 'utf8'), "daemon_name = 'kept'\n");
  });

  test('--cosmovisor-config reads config.toml; the environment overrides it; config shows each source', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const toml = path.join(t.root, 'cv.toml');
    await fs.writeFile(
      toml,
      [
        `daemon_home = '${t.home}'`,
        "daemon_name = 'simd'",
        'daemon_shutdown_grace = 5000000000',
        "daemon_restart_delay = '2s'",
        'daemon_poll_interval = 1000000000',
        'unsafe_skip_backup = true',
        "daemon_grpc_address = 'localhost:19090'",
        '',
      ].join('\n'),
    );
    const env = { DAEMON_HOME: '', DAEMON_NAME: '', UNSAFE_SKIP_BACKUP: '', DAEMON_POLL_INTERVAL: '' };
    // Before the command, and after it (cosmovisor's `run ... --cosmovisor-config <file>` form).
    for (const args of [
      ['--cosmovisor-config', toml, 'config'],
      ['config', '--cosmovisor-config', toml],
    ]) {
      const r = await t.cli(args, { ...env, DAEMON_GRPC_ADDRESS: 'localhost:29090' });
      assert.equal(r.exitCode, 0, r.stderr);
      assert.match(r.stdout, /DAEMON_SHUTDOWN_GRACE +5s +\[cosmovisor config .*cv\.toml\]/);
      assert.match(r.stdout, /DAEMON_RESTART_DELAY +2s +\[cosmovisor config /);
      assert.match(r.stdout, /DAEMON_POLL_INTERVAL +1s +\[cosmovisor config /);
      assert.match(r.stdout, /DAEMON_GRPC_ADDRESS +localhost:29090 +\[env\]/);
      assert.match(r.stdout, /DAEMON_ALLOW_DOWNLOAD_BINARIES +false +\[default\]/);
      assert.match(r.stdout, /cosmovisor config +.*cv\.toml/);
    }

    await fs.writeFile(toml, `daemon_home = '${t.home}'\ndaemon_name = simd\n`);
    const bad = await t.cli(['--cosmovisor-config', toml, 'config'], env);
    assert.equal(bad.exitCode, 78);
    assert.match(bad.stderr, /--cosmovisor-config=".*cv\.toml": is not valid TOML/);

    const missing = await t.cli(['--cosmovisor-config', path.join(t.root, 'nope.toml'), 'config'], env);
    assert.equal(missing.exitCode, 78);
    assert.match(missing.stderr, /cannot be read: the file does not exist/);
  });

  test('run takes --cosmovisor-config from among the node arguments and does not pass it on', async () => {
    const bin = await t.fakeNode({ label: 'genesis', runMs: 10, exitCode: 0 });
    await t.cliOk(['init', bin]);
    const toml = path.join(t.home, 'cosmovisor', 'config.toml');
    const r = await t.cli(['run', 'start', '--cosmovisor-config', toml, '--home', t.home], { DAEMON_HOME: '', DAEMON_NAME: '' });
    assert.equal(r.exitCode, 0, r.stderr);
    assert.deepEqual(await t.journalLines(), ['genesis start [start] [--home] [' + t.home + ']', 'genesis exit 0']);
  });

  test('an unknown key in config.toml is ignored with one warning naming it and the file (cosmovisor ignores it); in the JSON file it stays an error', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 10, exitCode: 0 })]);
    const toml = path.join(t.root, 'cv.toml');
    await fs.writeFile(
      toml,
      [`daemon_home = '${t.home}'`, "daemon_name = 'simd'", "cosmovisor_future_setting = 'on'", 'unsafe_skip_backup = true', ''].join('\n'),
    );
    const env = { DAEMON_HOME: '', DAEMON_NAME: '', UNSAFE_SKIP_BACKUP: '', CHAINVISOR_LOG_FORMAT: 'json' };
    const run = await t.cli(['run', 'start', '--cosmovisor-config', toml], env);
    assert.equal(run.exitCode, 0, run.stderr);
    const warnings = run.stderr.split('\n').filter((l) => l.includes('cosmovisor_future_setting'));
    assert.equal(warnings.length, 1, run.stderr);
    const line = JSON.parse(warnings[0] as string) as Record<string, unknown>;
    assert.equal(line.level, 40, 'a warning');
    assert.equal(line.key, 'cosmovisor_future_setting');
    assert.equal(line.file, toml);
    assert.match(String(line.msg), /unknown key "cosmovisor_future_setting" in .*cv\.toml: ignored, as cosmovisor ignores it/);
    assert.deepEqual(await t.journalLines(), ['genesis start [start]', 'genesis exit 0'], 'the node ran');
    const config = await t.cli(['--cosmovisor-config', toml, 'config'], env);
    assert.equal(config.exitCode, 0, config.stderr);
    assert.match(config.stderr, /unknown key \\?"cosmovisor_future_setting\\?" in /);

    const json = path.join(t.root, 'chainvisor.json');
    await fs.writeFile(json, JSON.stringify({ daemon_home: t.home, daemon_name: 'simd', cosmovisor_future_setting: 'on' }));
    const refused = await t.cli(['--config', json, 'config'], env);
    assert.equal(refused.exitCode, 78);
    assert.match(refused.stderr, /cosmovisor_future_setting in .*chainvisor\.json: unknown setting/);
  });

  test('init checks its argument before creating anything (64), with the fix', async () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /init needs the path of the node binary/],
      [[''], /init needs the path of the node binary/],
      [[path.join(t.root, 'missing-simd')], /no file at .*missing-simd/],
      [[t.root], /is a folder/],
    ];
    for (const [args, message] of cases) {
      const r = await t.cli(['init', ...args]);
      assert.equal(r.exitCode, 64, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.match(r.stderr, /hint: /);
      await assert.rejects(fs.stat(path.join(t.home, 'cosmovisor')), /ENOENT/, 'nothing created');
    }
  });

  test('init refuses layouts that cannot work (78) with a coded hint, and changes nothing', async () => {
    const bin = await t.fakeNode({ label: 'genesis' });
    const root = path.join(t.home, 'cosmovisor');
    const cases: Array<[() => Promise<void>, RegExp]> = [
      [async () => fs.writeFile(path.join(root, 'genesis', 'bin'), 'x'), /genesis\/bin is a regular file, not a folder/],
      [
        async () => void (await fs.mkdir(path.join(root, 'genesis', 'bin', 'simd'), { recursive: true })),
        /genesis\/bin\/simd is a folder, not the node binary/,
      ],
      [async () => fs.writeFile(path.join(root, 'current'), 'x'), /current is a regular file, not a link/],
    ];
    for (const [make, message] of cases) {
      await fs.rm(root, { recursive: true, force: true });
      await fs.mkdir(path.join(root, 'genesis'), { recursive: true });
      await make();
      const before = await listTree(root);
      const r = await t.cli(['init', bin]);
      assert.equal(r.exitCode, 78, r.stderr);
      assert.match(r.stderr, message);
      assert.match(r.stderr, /hint: .*(move it aside|remove or move it aside)/);
      assert.deepEqual(await listTree(root), before, 'nothing created or changed');
    }
  });

  test("a missing 'current' with a valid genesis is created at start as a relative link", async () => {
    const bin = await t.fakeNode({ label: 'genesis', runMs: 10, exitCode: 0 });
    await t.cliOk(['init', bin]);
    await fs.rm(path.join(t.home, 'cosmovisor', 'current'));
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(await t.current(), 'genesis');
    assert.match(r.stderr, /'current' was missing: created it as a link to genesis/);
    assert.deepEqual(await t.journalLines(), ['genesis start [start]', 'genesis exit 0']);
  });

  test('config and run refuse (78) when $DAEMON_HOME or $DAEMON_HOME/cosmovisor does not exist', async () => {
    for (const command of [['config'], ['run', 'start']]) {
      const noHome = await t.cli(command, { DAEMON_HOME: path.join(t.root, 'no-such-home') });
      assert.equal(noHome.exitCode, 78, noHome.stderr);
      assert.match(noHome.stderr, /DAEMON_HOME \(.*no-such-home\) does not exist/);
      const noRoot = await t.cli(command);
      assert.equal(noRoot.exitCode, 78, noRoot.stderr);
      assert.match(noRoot.stderr, /\$DAEMON_HOME\/cosmovisor \(.*\) does not exist/);
    }
    await fs.writeFile(path.join(t.root, 'a-file'), '');
    const file = await t.cli(['config'], { DAEMON_HOME: path.join(t.root, 'a-file') });
    assert.equal(file.exitCode, 78);
    assert.match(file.stderr, /is a regular file, not a folder/);
  });

  test('a relative DAEMON_DATA_BACKUP_DIR is accepted when backups are skipped, refused otherwise', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const skipped = await t.cli(['config'], { UNSAFE_SKIP_BACKUP: 'true', DAEMON_DATA_BACKUP_DIR: 'relative/backups' });
    assert.equal(skipped.exitCode, 0, skipped.stderr);
    const used = await t.cli(['config'], { UNSAFE_SKIP_BACKUP: 'false', DAEMON_DATA_BACKUP_DIR: 'relative/backups' });
    assert.equal(used.exitCode, 78);
    assert.match(used.stderr, /DAEMON_DATA_BACKUP_DIR="relative\/backups": expected an absolute path/);
  });

  test('a poll interval of 0 or under 10ms, and durations beyond what timers hold, are refused (78)', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const r = await t.cli(['config'], { DAEMON_POLL_INTERVAL: '0s', DAEMON_SHUTDOWN_GRACE: '1000h', DAEMON_RESTART_DELAY: '25d' });
    assert.equal(r.exitCode, 78);
    assert.match(r.stderr, /DAEMON_POLL_INTERVAL="0s": must be at least 10ms/);
    assert.match(r.stderr, /DAEMON_SHUTDOWN_GRACE="1000h": must be at most 2147483647ms \(about 24\.8 days; use 596h or less\): chainvisor cannot wait longer/);
    assert.match(r.stderr, /DAEMON_RESTART_DELAY="25d": expected a duration/);
    for (const value of ['0', '5ms']) {
      const small = await t.cli(['config'], { DAEMON_POLL_INTERVAL: value });
      assert.equal(small.exitCode, 78, value);
      assert.match(small.stderr, /must be at least 10ms/);
    }
    const ok = await t.cli(['config'], { DAEMON_POLL_INTERVAL: '10ms', DAEMON_SHUTDOWN_GRACE: '596h' });
    assert.equal(ok.exitCode, 0, ok.stderr);
  });
});

async function listTree(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries.map((e) => `${path.relative(dir, path.join(e.parentPath ?? e.path, e.name))}:${e.isDirectory() ? 'd' : e.isFile() ? 'f' : 'o'}`).sort();
}
