/**
 * Backups through `chainvisor run` with a fake node: a symlinked data folder is backed up by content;
 * a partial backup left by a crash is removed at the next start; a restart after the halt reuses the
 * backup made for that upgrade; CHAINVISOR_BACKUP_KEEP removes only backups chainvisor made.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { plan } from '../../support/fake-node.js';
import { makeHome, type TestHome, waitFor } from '../../support/home.js';
import { tryMountTmpfs } from '../../support/tmpfs.js';

describe('chainvisor run: backups', () => {
  let t: TestHome;
  let backups: string;
  let env: Record<string, string>;
  beforeEach(async () => {
    t = await makeHome();
    backups = path.join(t.root, 'backups');
    await fs.mkdir(backups);
    env = { UNSAFE_SKIP_BACKUP: 'false', DAEMON_DATA_BACKUP_DIR: backups, CHAINVISOR_LOG_FORMAT: 'json' };
  });
  afterEach(async () => {
    await t.cleanup();
  });

  async function homeWithUpgrade(v2PreUpgrade: number[] = [0]): Promise<void> {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'exit' } });
    const v2 = await t.fakeNode({ label: 'v2', runMs: 10, preUpgrade: v2PreUpgrade });
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v2', v2]);
  }

  /** 4,000 files: long enough a backup to be caught half-way. */
  async function manySmallFiles(data: string): Promise<void> {
    for (let d = 0; d < 10; d++) {
      await fs.mkdir(path.join(data, `db${d}`), { recursive: true });
      await Promise.all(Array.from({ length: 400 }, (_, i) => fs.writeFile(path.join(data, `db${d}`, `${i}.log`), Buffer.alloc(8192, i))));
    }
  }

  const finished = async (): Promise<string[]> => (await fs.readdir(backups)).filter((n) => n.startsWith('data-backup-'));

  test('a data folder that is a symlink to another volume is backed up by content', async () => {
    await homeWithUpgrade();
    const volume = path.join(t.root, 'volume', 'data');
    await fs.mkdir(path.join(volume, 'application.db'), { recursive: true });
    await fs.writeFile(path.join(volume, 'application.db', '000005.ldb'), 'table');
    await fs.writeFile(path.join(volume, 'priv_validator_state.json'), '{"height":"9"}');
    await fs.symlink(volume, path.join(t.home, 'data'));
    const r = await t.cli(['run', 'start'], env);
    assert.equal(r.exitCode, 0, r.stderr);
    const [name] = await finished();
    assert.ok(name);
    const backup = path.join(backups, name);
    assert.ok((await fs.lstat(backup)).isDirectory(), 'the backup is a folder, not a copy of the link');
    assert.equal(await fs.readFile(path.join(backup, 'application.db', '000005.ldb'), 'utf8'), 'table');
    assert.equal(await fs.readFile(path.join(backup, 'priv_validator_state.json'), 'utf8'), '{"height":"9"}');
    assert.match(r.stderr, /leads to .*volume\/data: backing up the files there/);
  });

  test('a partial backup left by a crash is removed at the next start; others are left alone', async () => {
    await homeWithUpgrade();
    await fs.mkdir(path.join(t.home, 'data'), { recursive: true });
    const dead = spawnSync('true').pid; // a pid that has exited
    const crashed = path.join(backups, `.data-backup-2026-1-5.partial-${dead}-0badc0de`);
    const older = path.join(backups, '.data-backup-2026-1-4.partial-deadbeef'); // an earlier version's name
    const writing = path.join(backups, `.data-backup-2026-1-6.partial-${process.pid}-feedf00d`); // a live writer
    const operator = path.join(backups, 'my-own-copy');
    for (const dir of [crashed, older, writing, operator]) {
      await fs.mkdir(path.join(dir, 'application.db'), { recursive: true });
      await fs.writeFile(path.join(dir, 'application.db', '000001.ldb'), 'x');
    }
    const r = await t.cli(['run', 'start'], { ...env, UNSAFE_SKIP_BACKUP: 'true' });
    assert.equal(r.exitCode, 0, r.stderr);
    const names = await fs.readdir(backups);
    assert.ok(!names.includes(path.basename(crashed)), 'the crashed partial is gone');
    assert.ok(!names.includes(path.basename(older)));
    assert.ok(names.includes(path.basename(writing)), 'a partial whose writer is alive is kept');
    assert.ok(names.includes('my-own-copy'));
    assert.match(r.stderr, /removed a partial backup left by an interrupted run: .*partial-\d+-0badc0de/);
  });

  test('asked to stop during a backup: the partial copy is removed, exit with the signal status', async () => {
    await homeWithUpgrade();
    await manySmallFiles(path.join(t.home, 'data'));
    const run = t.spawn(['run', 'start'], { ...env, CHAINVISOR_BACKUP_MODE: 'copy' });
    await waitFor(async () => (await fs.readdir(backups)).some((n) => n.includes('.partial-')), 'a partial backup to appear');
    run.kill('SIGTERM');
    const r = await run;
    if ((await finished()).length > 0) return void console.log('# the backup finished before the signal; nothing to test this time');
    assert.equal(r.exitCode, 143, r.all);
    assert.match(r.all ?? '', /stopped while applying an upgrade; current was not switched/);
    assert.deepEqual(await fs.readdir(backups), [], 'no partial copy left');
    assert.equal(await t.current(), 'genesis');
  });

  test('chainvisor killed with SIGKILL mid-backup: the next start removes the partial copy and backs up again', async () => {
    await homeWithUpgrade();
    await manySmallFiles(path.join(t.home, 'data'));
    const run = t.spawn(['run', 'start'], { ...env, CHAINVISOR_BACKUP_MODE: 'copy' });
    let partial = '';
    await waitFor(async () => {
      partial = (await fs.readdir(backups)).find((n) => n.includes('.partial-')) ?? '';
      return partial !== '';
    }, 'a partial backup to appear');
    run.kill('SIGKILL');
    await run.catch(() => undefined);
    const left = await fs.readdir(backups);
    if (!left.includes(partial)) return void console.log('# the backup finished before the kill; nothing to test this time');
    assert.equal(await t.current(), 'genesis');

    const r = await t.cli(['run', 'start'], env);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.match(r.stderr, /removed a partial backup left by an interrupted run/);
    const after = await fs.readdir(backups);
    assert.ok(!after.some((n) => n.includes('.partial-')), after.join());
    assert.equal((await finished()).length, 1);
    assert.equal(await t.current(), 'upgrades/v2');
  });

  for (const mode of ['copy', 'link'] as const) {
    test(`a ${mode} backup refused for space (a full backup disk): exit 81, no "backup finished" line, a hint that fits the mode`, async (ctx) => {
      await homeWithUpgrade();
      await fs.mkdir(path.join(t.home, 'data'), { recursive: true });
      await fs.writeFile(path.join(t.home, 'data', 'state.db'), Buffer.alloc(1024 * 1024, 1)); // not a table: link mode copies it too
      const small = path.join(t.root, 'small-backup-disk');
      await fs.mkdir(small);
      if (!tryMountTmpfs(small, '64k')) return void ctx.skip('cannot mount a small tmpfs here (needs root and a host that allows mounts)');
      try {
        const r = await t.cli(['run', 'start'], { ...env, DAEMON_DATA_BACKUP_DIR: small, CHAINVISOR_BACKUP_MODE: mode });
        assert.equal(r.exitCode, 81, r.stderr);
        assert.match(r.stderr, /chainvisor: code: CHAINVISOR_BACKUP_NO_SPACE/);
        assert.doesNotMatch(r.stderr, /backup (finished|stopped)/, 'nothing was backed up: no progress line says otherwise');
        const hint = /^chainvisor: hint: (.*)$/m.exec(r.stderr)?.[1] ?? '';
        assert.match(hint, /free .* or more in .*small-backup-disk/);
        assert.match(hint, /DAEMON_DATA_BACKUP_DIR/);
        assert.match(hint, /UNSAFE_SKIP_BACKUP=true/);
        if (mode === 'link') assert.doesNotMatch(hint, /CHAINVISOR_BACKUP_MODE=link/, 'a link backup is not told to use link mode');
        else assert.match(hint, /CHAINVISOR_BACKUP_MODE=link/);
        assert.deepEqual(await fs.readdir(small), [], 'nothing written');
        assert.equal(await t.current(), 'genesis');
      } finally {
        execFileSync('umount', [small]);
      }
    });
  }

  test('a restart after the halt reuses the backup made for the same upgrade', async () => {
    await homeWithUpgrade([30, 0]); // the first pre-upgrade fails: exit 80 after the backup
    await fs.mkdir(path.join(t.home, 'data'), { recursive: true });
    await fs.writeFile(path.join(t.home, 'data', 'state.db'), 'state');
    const first = await t.cli(['run', 'start'], env);
    assert.equal(first.exitCode, 80, first.stderr);
    assert.equal((await finished()).length, 1);
    const made = JSON.parse(await fs.readFile(path.join(t.home, 'cosmovisor', '.chainvisor', 'backups.json'), 'utf8'));
    assert.deepEqual(
      made.map((b: { upgrade: string; height: number; files: number }) => [b.upgrade, b.height, b.files]),
      [['v2', 10, 2]],
      'state.db and the upgrade-info.json the node wrote',
    );

    const second = await t.cli(['run', 'start'], env);
    assert.equal(second.exitCode, 0, second.stderr);
    assert.match(second.stderr, /reusing the backup made for upgrade \\?"v2\\?"/);
    assert.equal((await finished()).length, 1, 'no second backup');
    assert.equal(await t.current(), 'upgrades/v2');
  });

  test('CHAINVISOR_BACKUP_KEEP removes only older backups chainvisor made', async () => {
    await homeWithUpgrade();
    await fs.mkdir(path.join(t.home, 'data'), { recursive: true });
    await fs.writeFile(path.join(t.home, 'data', 'state.db'), 'state');
    const old1 = path.join(backups, 'data-backup-2025-1-1');
    const old2 = path.join(backups, 'data-backup-2025-2-1');
    const operators = path.join(backups, 'data-backup-2024-6-1');
    for (const dir of [old1, old2, operators]) {
      await fs.mkdir(dir);
      await fs.writeFile(path.join(dir, 'state.db'), 'old');
    }
    const record = (p: string, upgrade: string, time: string) => ({
      upgrade,
      height: 5,
      path: p,
      dataDir: path.join(t.home, 'data'),
      mode: 'copy',
      bytes: 3,
      files: 1,
      durationSeconds: 0.1,
      time,
    });
    await fs.mkdir(path.join(t.home, 'cosmovisor', '.chainvisor'), { recursive: true });
    await fs.writeFile(
      path.join(t.home, 'cosmovisor', '.chainvisor', 'backups.json'),
      JSON.stringify([record(old1, 'v0', '2025-01-01T00:00:00.000Z'), record(old2, 'v1', '2025-02-01T00:00:00.000Z')]),
    );
    const r = await t.cli(['run', 'start'], { ...env, CHAINVISOR_BACKUP_KEEP: '2' });
    assert.equal(r.exitCode, 0, r.stderr);
    const names = await finished();
    assert.ok(!names.includes('data-backup-2025-1-1'), 'the oldest chainvisor backup is removed');
    assert.ok(names.includes('data-backup-2025-2-1'), 'the second newest is kept');
    assert.ok(names.includes('data-backup-2024-6-1'), "the operator's folder is never touched");
    assert.equal(names.length, 3, names.join());
    assert.match(r.stderr, /removed an old backup \(CHAINVISOR_BACKUP_KEEP=2\)/);
    const made = JSON.parse(await fs.readFile(path.join(t.home, 'cosmovisor', '.chainvisor', 'backups.json'), 'utf8'));
    assert.deepEqual(
      made.map((b: { upgrade: string }) => b.upgrade),
      ['v1', 'v2'],
    );
  });

  test('a record of backups naming data/ itself: KEEP removes nothing on its word, the upgrade goes on (issue #31)', async () => {
    await homeWithUpgrade();
    await fs.mkdir(path.join(t.home, 'data'), { recursive: true });
    await fs.writeFile(path.join(t.home, 'data', 'state.db'), 'state');
    const old = path.join(backups, 'data-backup-2025-1-1');
    await fs.mkdir(old);
    const entry = (p: string, upgrade: string, time: string) => ({
      upgrade,
      height: 5,
      path: p,
      dataDir: path.join(t.home, 'data'),
      mode: 'copy',
      bytes: 3,
      files: 1,
      durationSeconds: 0.1,
      time,
    });
    const file = path.join(t.home, 'cosmovisor', '.chainvisor', 'backups.json');
    const text = JSON.stringify([entry(path.join(t.home, 'data'), 'v0', '2025-01-01T00:00:00.000Z'), entry(old, 'v1', '2025-02-01T00:00:00.000Z')]);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, text);
    const r = await t.cli(['run', 'start'], { ...env, CHAINVISOR_BACKUP_KEEP: '1' });
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(await t.current(), 'upgrades/v2', 'the upgrade was applied');
    assert.equal(await fs.readFile(path.join(t.home, 'data', 'state.db'), 'utf8'), 'state', 'data/ is still there');
    await fs.access(old);
    assert.equal((await finished()).length, 2, 'the new backup was made');
    assert.match(r.stderr, /cannot read the record of the backups chainvisor made, .*backups\.json: .*\[0\]\.path: not a data-backup-\* folder/);
    assert.doesNotMatch(r.stderr, /removed an old backup/);
    assert.equal(await fs.readFile(file, 'utf8'), text, 'the damaged record is not written over');
  });
});
