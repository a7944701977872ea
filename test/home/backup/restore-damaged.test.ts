/**
 * `chainvisor restore` and the records it trusts, damaged (issue #31), through the real command: a
 * backup holding what a restore cannot put back (a FIFO, a socket, a device) stops with a restore's
 * code and hint; a restore journal, a record of backups or a history of restores in any shape but the
 * one chainvisor writes never removes, renames or switches anything on its word; a signing state that
 * cannot be read stops `restore --dry-run` too. The live data is compared before and after each.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { snapshot } from '../../support/data-tree.js';
import { type CliResult, makeHome, type TestHome } from '../../support/home.js';
import { stateJson, upgradedHome } from '../../support/upgraded-home.js';

function assertStopped(r: CliResult, exit: number, code: string, about: RegExp): void {
  assert.equal(r.exitCode, exit, r.stderr);
  assert.match(r.stderr, new RegExp(`code: ${code}\\b`));
  assert.match(r.stderr, about);
  assert.match(r.stderr, /hint: \S/);
  assert.doesNotMatch(r.stderr, /unexpected error|this is a bug|RangeError|at .*\.js:\d+/);
}

/** A unix socket file left at `file` (its listener gone). */
function socketAt(file: string): void {
  const r = spawnSync(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(file)}, () => process.exit(0))`]);
  assert.equal(r.status, 0, String(r.stderr));
}

describe('restore and damaged files', () => {
  let t: TestHome;
  let backup: string;
  const data = () => path.join(t.home, 'data');
  const state = (name: string) => path.join(t.home, 'cosmovisor', '.chainvisor', name);
  /** Everything beside data/ that a restore makes. */
  const restoreFolders = async () => (await fs.readdir(t.home)).filter((n) => /^data\.(replaced|restoring)-/.test(n));

  beforeEach(async () => {
    t = await makeHome();
    ({ backup } = await upgradedHome(t));
  });
  afterEach(async () => {
    await t.cleanup();
  });

  const oddFiles: [string, (file: string) => void, boolean][] = [
    ['a FIFO', (file) => spawnSync('mkfifo', [file]), true],
    ['a socket', socketAt, true],
    ['a character device', (file) => spawnSync('mknod', [file, 'c', '1', '3']), process.getuid?.() === 0],
  ];
  for (const [name, make, possible] of oddFiles) {
    test(
      `a backup holding ${name}: 79 CHAINVISOR_RESTORE_FAILED with a restore's hint, nothing touched`,
      { skip: !possible && 'mknod needs root' },
      async () => {
        make(path.join(backup, 'application.db', 'odd'));
        const before = await snapshot(data());
        const r = await t.cli(['restore', '--yes']);
        assertStopped(r, 79, 'CHAINVISOR_RESTORE_FAILED', /application\.db\/odd is a .*, which a restore cannot put back; nothing was changed/);
        assert.match(r.stderr, /hint: move it out of the backup folder .* or restore another backup with --backup <folder>/);
        assert.doesNotMatch(r.stderr, /BACKUP_FAILED|UNSAFE_SKIP_BACKUP|data folder/);
        assert.deepEqual(await snapshot(data()), before, 'the live data is untouched');
        assert.deepEqual(await restoreFolders(), []);
        await assert.rejects(fs.access(state('restore-journal.json')), { code: 'ENOENT' });
        assert.equal(await t.current(), 'upgrades/v2');
      },
    );
  }

  /** A whole journal of this home, as `restore` writes it, with `change` applied. */
  function journal(change: Record<string, unknown> = {}, d = data()): string {
    const base = {
      phase: 'copying',
      dataDir: d,
      work: `${d}.restoring-2026-01-01T00-00-00-000Z`,
      replaced: `${d}.replaced-2026-01-01T00-00-00-000Z`,
      currentTo: 'genesis',
      signed: { chainId: 'restore-1', height: '140', round: 1, step: 2, file: path.join(d, 'priv_validator_state.json') },
      record: {
        time: '',
        backup,
        dataDir: d,
        replaced: `${d}.replaced-2026-01-01T00-00-00-000Z`,
        mode: 'copy',
        bytes: 1,
        files: 1,
        durationSeconds: 0,
        signing: { kept: 'replaced', replacedHeight: '140', backupHeight: '99' },
        current: { from: 'upgrades/v2', to: 'genesis' },
      },
    };
    return JSON.stringify({ ...base, ...change }, null, 2);
  }

  test('a whole journal of this home is still finished (the shape the tests below damage)', async () => {
    await fs.cp(backup, `${data()}.restoring-2026-01-01T00-00-00-000Z`, { recursive: true });
    await fs.writeFile(state('restore-journal.json'), journal({ phase: 'swapping' }));
    // Not by a dry run, which writes nothing (issue #43): by the restore, before it asks (no terminal, no --yes: 64).
    const r = await t.cli(['restore']);
    assert.equal(r.exitCode, 64, r.stderr);
    assert.match(r.stderr, /finished a restore interrupted after its copy was whole/);
    assert.equal(await t.current(), 'genesis');
  });

  const elsewhere = () => path.join(t.root, 'other-home', 'data');
  const damagedJournals: [string, () => string][] = [
    ['naming data/ itself as the copy to remove', () => journal({ work: data() })],
    ['naming a folder elsewhere as the copy to remove', () => journal({ work: `${elsewhere()}.restoring-2026-01-01T00-00-00-000Z` })],
    ['naming a folder elsewhere as where data/ goes', () => journal({ phase: 'swapping', replaced: '/tmp/x.replaced-1' })],
    ['of another home (copied with this one)', () => journal({}, elsewhere())],
    ['switching current outside the binaries', () => journal({ phase: 'swapping', currentTo: '../../evil' })],
    [
      'recording a height of 2^63',
      () => journal({ phase: 'swapping', signed: { chainId: 'c', height: '9223372036854775808', round: 0, step: 3, file: '/f' } }),
    ],
    ['with a phase of its own', () => journal({ phase: 'done' })],
    ['with the phase twice', () => journal().replace('"phase": "copying"', '"phase": "swapping", "phase": "copying"')],
    ['with a field more', () => journal({ note: 1 })],
    ['{}', () => '{}'],
    ['[]', () => '[]'],
    ['zero bytes', () => ''],
    ['cut short', () => journal().slice(0, 60)],
    ['nested 100 000 deep', () => `{"phase": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`],
  ];
  for (const [name, text] of damagedJournals) {
    test(`a restore journal ${name}: restore and run stop (79), nothing removed, renamed or switched`, async () => {
      const file = state('restore-journal.json');
      const content = text();
      await fs.writeFile(file, content);
      // The other home's copy of a restore, which that home's journal would remove.
      const otherCopy = `${elsewhere()}.restoring-2026-01-01T00-00-00-000Z`;
      await fs.mkdir(otherCopy, { recursive: true });
      const before = await snapshot(data());
      for (const args of [
        ['run', 'start'],
        ['restore', '--yes'],
      ]) {
        const r = await t.cli(args);
        assertStopped(r, 79, 'CHAINVISOR_RESTORE_FAILED', /restore-journal\.json records an interrupted restore but cannot be read: /);
        assert.match(r.stderr, /hint: look beside .*data\.restoring-\* is the copy/);
      }
      assert.deepEqual(await snapshot(data()), before, 'data/ is untouched');
      assert.equal(await fs.readFile(file, 'utf8'), content, 'the journal is left for the operator');
      assert.equal(await t.current(), 'upgrades/v2');
      assert.deepEqual(await restoreFolders(), []);
      await fs.access(otherCopy);
    });
  }

  test('a restore journal that is a FIFO: restore stops at once (79)', async () => {
    spawnSync('mkfifo', [state('restore-journal.json')]);
    assertStopped(await t.cli(['restore', '--yes']), 79, 'CHAINVISOR_RESTORE_FAILED', /it is a FIFO/);
  });

  const damagedBackupRecords: [string, () => string][] = [
    ['sending current outside the binaries', () => recordWith({ current: '../../evil' })],
    ['naming data/ itself as the backup', () => recordWith({ path: data() })],
    ['naming / as the backup', () => recordWith({ path: '/' })],
    ['with a height as a string', () => recordWith({ height: '100' })],
    ['with an entry of another shape', () => JSON.stringify([{ path: backup }])],
    ['{}', () => '{}'],
    ['zero bytes', () => ''],
    ['cut short', () => recordWith({}).slice(0, 50)],
    ['with a key twice', () => recordWith({}).replace('"upgrade":"v2"', '"upgrade":"v2","upgrade":"v3"')],
  ];
  function recordWith(change: Record<string, unknown>): string {
    const entry = {
      upgrade: 'v2',
      height: 100,
      path: backup,
      dataDir: data(),
      mode: 'copy',
      bytes: 1,
      files: 1,
      durationSeconds: 0.1,
      time: '2026-01-01T00:00:00.000Z',
      current: 'genesis',
      ...change,
    };
    return JSON.stringify([entry]);
  }
  for (const [name, text] of damagedBackupRecords) {
    test(`a record of backups ${name}: restore stops (79) naming it, nothing changed`, async () => {
      await fs.writeFile(state('backups.json'), text());
      const before = await snapshot(data());
      const r = await t.cli(['restore', '--yes']);
      assertStopped(r, 79, 'CHAINVISOR_BACKUP_RECORD_UNREADABLE', /cannot read the record of the backups chainvisor made, .*backups\.json: /);
      assert.match(r.stderr, /hint: move .*backups\.json aside .* --backup <folder>/);
      assert.deepEqual(await snapshot(data()), before);
      assert.equal(await t.current(), 'upgrades/v2');
      assert.deepEqual(await restoreFolders(), []);
    });
  }

  test('a record of backups that is a FIFO: restore stops at once (79)', async () => {
    await fs.rm(state('backups.json'));
    spawnSync('mkfifo', [state('backups.json')]);
    assertStopped(await t.cli(['restore', '--yes']), 79, 'CHAINVISOR_BACKUP_RECORD_UNREADABLE', /it is a FIFO/);
  });

  for (const [name, make] of [
    ['not the shape chainvisor writes', (file: string) => fs.writeFile(file, '[{"backup": 5}]')],
    ['a FIFO', async (file: string) => void spawnSync('mkfifo', [file])],
  ] as const) {
    test(`a history of restores that is ${name}: set aside, the restore done and recorded afresh`, async () => {
      const file = state('restores.json');
      await make(file);
      const r = await t.cli(['restore', '--yes']);
      assert.equal(r.exitCode, 0, r.stderr);
      assert.match(r.stderr, /the history of restores .*restores\.json cannot be read .*set aside as .*restores\.json\.damaged-/);
      const history = JSON.parse(await fs.readFile(file, 'utf8'));
      assert.equal(history.length, 1);
      assert.equal(history[0].backup, backup);
      const aside = (await fs.readdir(path.dirname(file))).filter((n) => n.startsWith('restores.json.damaged-'));
      assert.equal(aside.length, 1);
    });
  }

  test('restore --dry-run on a signing state nested 100 000 deep: 84, no stack', async () => {
    const deep = `{"height":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)},"round":0,"step":0}`;
    await fs.writeFile(path.join(data(), 'priv_validator_state.json'), deep);
    assertStopped(await t.cli(['restore', '--dry-run']), 84, 'CHAINVISOR_SIGN_STATE_UNREADABLE', /nested deeper than/);
  });

  test("a backup's signing state at 2^63: 84, nothing restored and nothing recorded", async () => {
    await fs.writeFile(path.join(backup, 'priv_validator_state.json'), stateJson(0).replace('"0"', '"9223372036854775808"'));
    const before = await snapshot(data());
    assertStopped(await t.cli(['restore', '--yes']), 84, 'CHAINVISOR_SIGN_STATE_UNREADABLE', /above the largest height/);
    assert.deepEqual(await snapshot(data()), before);
    await assert.rejects(fs.access(state('sign-state.json')), { code: 'ENOENT' });
  });
});
