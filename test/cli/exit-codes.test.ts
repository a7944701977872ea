/**
 * The README's exit-code table, row by row: each documented code is produced by the real CLI in the
 * situation the table names, and the table lists no code without a case here (and the reverse).
 * Operators' scripts and service managers act on these numbers.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { ExitCode } from '../../src/shared/errors/index.js';
import { plan } from '../support/fake-node.js';
import { type CliResult, makeHome, type TestHome, waitFor } from '../support/home.js';

const readme = path.resolve(fileURLToPath(import.meta.url), '../../../../README.md');

/** The first column of the README's "Exit codes" table. */
async function documentedCodes(): Promise<string[]> {
  const text = await fs.readFile(readme, 'utf8');
  const section = text.split(/^### Exit codes$/m)[1]?.split(/^#/m)[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| code') && !line.startsWith('|---'))
    .map((line) => line.split('|')[1]?.trim() ?? '');
}

/** The scenarios below, by the table's first column. */
const covered = ["the node's", '0', '1', '64', '78', '79', '80', '81', '82', '83', '84'];

function assertCoded(r: CliResult, exitCode: number, code: string): void {
  assert.equal(r.exitCode, exitCode, r.stderr);
  assert.match(r.stderr, new RegExp(`chainvisor: code: ${code}\\b`), r.stderr);
  assert.match(r.stderr, /chainvisor: hint: /);
  assert.doesNotMatch(r.stderr, /unexpected error|^\s+at /m);
}

describe('exit codes, as the README documents them', () => {
  let t: TestHome;
  beforeEach(async () => {
    t = await makeHome({ CHAINVISOR_PLAN_POLL_INTERVAL: '0s' });
  });
  afterEach(async () => {
    await t.cleanup();
  });

  /** genesis and v2 installed and a plan for v2 in data/: `run` applies it at start-up. */
  async function dueUpgrade(v2: Parameters<TestHome['fakeNode']>[0] | null = { label: 'v2', runMs: 0 }): Promise<void> {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 0 })]);
    if (v2) await t.cliOk(['add-upgrade', 'v2', await t.fakeNode(v2)]);
    await fs.mkdir(path.join(t.home, 'data'), { recursive: true });
    await fs.writeFile(path.join(t.home, 'data/upgrade-info.json'), JSON.stringify(plan('v2', 10)));
  }

  test('the table and these cases list the same codes, and every ExitCode constant is in the table', async () => {
    const codes = await documentedCodes();
    assert.deepEqual([...codes].sort(), [...covered].sort());
    for (const value of Object.values(ExitCode)) assert.ok(codes.includes(String(value)), `ExitCode ${value} is not in the README's table`);
  });

  test("the node's: run exits with the node's status, or 128+N when a signal killed it", async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 0, exitCode: 3 })]);
    assert.equal((await t.cli(['run', 'start'])).exitCode, 3);
    await t.cliOk(['init', await t.fakeNode({ label: 'killed', onStart: 'kill -KILL $$' }), '--force']);
    assert.equal((await t.cli(['run', 'start'])).exitCode, 128 + 9);
  });

  test('0: success; run after an upgrade with DAEMON_RESTART_AFTER_UPGRADE=false', async () => {
    await dueUpgrade();
    const r = await t.cli(['run', 'start'], { DAEMON_RESTART_AFTER_UPGRADE: 'false' });
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(await t.current(), 'upgrades/v2');
    assert.equal((await t.cli(['version'])).exitCode, 0);
  });

  test('1: the command failed (show-upgrade-info on genesis)', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    assertCoded(await t.cli(['show-upgrade-info']), 1, 'CHAINVISOR_NO_UPGRADE_INFO');
  });

  test('64: the command line is wrong', async () => {
    assertCoded(await t.cli(['frobnicate']), 64, 'CHAINVISOR_USAGE');
    assertCoded(await t.cli(['add-upgrade', 'v2']), 64, 'CHAINVISOR_USAGE');
  });

  test('78: settings that would break every upgrade are refused with the reason', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    for (const [name, value, reason] of [
      ['CHAINVISOR_DOWNLOAD_TIMEOUT', '0s', /must be at least 100ms: 0 would turn every timeout off/],
      ['CHAINVISOR_DOWNLOAD_TIMEOUT', '0', /must be at least 100ms: 0 would turn every timeout off/],
      ['CHAINVISOR_EXTRACT_MAX_ENTRIES', '0', /must be at least 1: 0 would refuse every archive/],
      ['DAEMON_POLL_INTERVAL', '1ms', /must be at least 10ms: a shorter interval keeps a CPU core busy/],
      ['CHAINVISOR_PLAN_POLL_INTERVAL', '1ms', /must be at least 100ms \(or 0s\): a shorter interval asks the node/],
      ['CHAINVISOR_DOWNLOAD_MAX_BYTES', '1', /must be at least 1MiB: no node binary is that small/],
      ['CHAINVISOR_EXTRACT_MAX_BYTES', '1KiB', /must be at least 1MiB: no node binary is that small/],
    ] as const) {
      for (const command of ['config', 'run']) {
        const r = await t.cli([command, ...(command === 'run' ? ['start'] : [])], { [name]: value });
        assertCoded(r, 78, 'CHAINVISOR_CONFIG_INVALID');
        assert.match(r.stderr, new RegExp(`${name}=${JSON.stringify(JSON.stringify(value)).slice(1, -1)}`));
        assert.match(r.stderr, reason);
      }
    }
    assert.deepEqual(await t.journalLines(), [], 'no node started');
    assert.equal((await t.cli(['config'], { CHAINVISOR_PLAN_POLL_INTERVAL: '0s' })).exitCode, 0, '0s still turns plan watching off');
  });

  test('78: a number past what its setting can mean is refused by config and run, naming the setting and the limit', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const env = {
      CHAINVISOR_DOWNLOAD_MAX_BYTES: '99999999999999999999TiB',
      CHAINVISOR_DOWNLOAD_RETRIES: '99999999999999999999',
      DAEMON_SHUTDOWN_GRACE: '99999999999999999999h',
    };
    for (const command of ['config', 'run']) {
      const r = await t.cli([command, ...(command === 'run' ? ['start'] : [])], env);
      assertCoded(r, 78, 'CHAINVISOR_CONFIG_INVALID');
      // Every problem at once, each with its limit; nothing printed as a 1e+32-byte size.
      assert.match(r.stderr, /CHAINVISOR_DOWNLOAD_MAX_BYTES="99999999999999999999TiB": must be at most 9007199254740991 bytes/);
      assert.match(r.stderr, /CHAINVISOR_DOWNLOAD_RETRIES="99999999999999999999": must be at most 9007199254740991:/);
      assert.match(r.stderr, /DAEMON_SHUTDOWN_GRACE="99999999999999999999h": must be at most 9007199254740991ms/);
      assert.doesNotMatch(r.stdout, /e\+\d+ bytes/);
    }
    assert.deepEqual(await t.journalLines(), [], 'no node started');
  });

  test('78: config refuses a DAEMON_NAME that run could not use (300 bytes: ENAMETOOLONG); a 255-byte name works end to end', async () => {
    const long = 'n'.repeat(300);
    for (const command of ['config', 'run']) {
      const r = await t.cli([command, ...(command === 'run' ? ['start'] : [])], { DAEMON_NAME: long });
      assertCoded(r, 78, 'CHAINVISOR_CONFIG_INVALID');
      assert.match(r.stderr, /DAEMON_NAME="n{300}": the name is 300 bytes long \(UTF-8\); a file name may have at most 255/);
    }
    const longest = { DAEMON_NAME: 'n'.repeat(255) };
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 0 })], longest);
    assert.equal((await t.cli(['config'], longest)).exitCode, 0);
    const run = await t.cli(['run', 'start'], longest);
    assert.equal(run.exitCode, 0, run.stderr);
    assert.ok((await t.journalLines()).includes('genesis start [start]'), 'the node with the longest name started');
  });

  test('78: config refuses a COSMOVISOR_CUSTOM_PREUPGRADE script that is not there; run says so and keeps the node running', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 0 })]);
    const r = await t.cli(['config'], { COSMOVISOR_CUSTOM_PREUPGRADE: 'nope.sh' });
    assertCoded(r, 78, 'CHAINVISOR_CONFIG_INVALID');
    assert.match(
      r.stderr,
      /COSMOVISOR_CUSTOM_PREUPGRADE="nope.sh": .*cosmovisor\/nope\.sh does not exist, so every upgrade would fail at this step \(exit 80\)/,
    );
    const run = await t.cli(['run', 'start'], { COSMOVISOR_CUSTOM_PREUPGRADE: 'nope.sh', CHAINVISOR_LOG_FORMAT: 'json' });
    assert.equal(run.exitCode, 0, run.stderr);
    assert.match(run.stderr, /"level":50.*COSMOVISOR_CUSTOM_PREUPGRADE: .*nope\.sh does not exist/);
    assert.ok((await t.journalLines()).includes('genesis start [start]'));
    // A script path that is a link loop is a problem of the setting too, never a crash.
    await fs.symlink('loop.sh', path.join(t.home, 'cosmovisor/loop.sh'));
    const loop = await t.cli(['config'], { COSMOVISOR_CUSTOM_PREUPGRADE: 'loop.sh' });
    assertCoded(loop, 78, 'CHAINVISOR_CONFIG_INVALID');
    assert.match(loop.stderr, /loop\.sh cannot be examined \(ELOOP/);
  });

  test('78: the home is not initialised', async () => {
    assertCoded(await t.cli(['run', 'start']), 78, 'CHAINVISOR_HOME_MISSING');
  });

  test('78: current is a real folder, a loop, or points outside the home; nothing starts', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const current = path.join(t.home, 'cosmovisor/current');
    const cases: Array<[string, () => Promise<void>, string]> = [
      ['a folder', () => fs.cp(path.join(t.home, 'cosmovisor/genesis'), current, { recursive: true }), 'CHAINVISOR_CURRENT_NOT_LINK'],
      ['a loop', () => fs.symlink('current', current), 'CHAINVISOR_CURRENT_OUTSIDE'],
      ['outside', () => fs.symlink('/usr/bin', current), 'CHAINVISOR_CURRENT_OUTSIDE'],
    ];
    for (const [what, make, code] of cases) {
      await fs.rm(current, { recursive: true, force: true });
      await make();
      const r = await t.cli(['run', 'start']);
      assertCoded(r, 78, code);
      assert.deepEqual(await t.journalLines(), [], `no node started with current as ${what}`);
    }
  });

  test('78: a genesis binary without the execute bit cannot be started', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    await fs.chmod(path.join(t.home, 'cosmovisor/genesis/bin/simd'), 0o644);
    const r = await t.cli(['run', 'start']);
    assertCoded(r, 78, 'CHAINVISOR_NODE_SPAWN_FAILED');
    assert.match(r.stderr, /hint: make it executable: chmod \+x /);
  });

  test('79: an upgrade failed (its binary is missing and downloads are off); current unchanged', async () => {
    await dueUpgrade(null);
    const r = await t.cli(['run', 'start']);
    assertCoded(r, 79, 'CHAINVISOR_UPGRADE_BINARY_MISSING');
    assert.equal(await t.current(), 'genesis');
  });

  test('79: a plan whose name cannot be a folder (over 255 bytes once escaped), with a hint that can help', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 0 })]);
    await fs.mkdir(path.join(t.home, 'data'), { recursive: true });
    await fs.writeFile(path.join(t.home, 'data/upgrade-info.json'), JSON.stringify(plan('升'.repeat(30), 10)));
    const r = await t.cli(['run', 'start']);
    assertCoded(r, 79, 'CHAINVISOR_BAD_PLAN_NAME');
    assert.match(r.stderr, /makes a folder name of 270 bytes/);
    assert.match(r.stderr, /hint: .*comes from the chain's upgrade proposal/);
    assert.doesNotMatch(r.stderr, /ENAMETOOLONG|shorter DAEMON_HOME/);
    assert.equal(await t.current(), 'genesis');
  });

  test('80: pre-upgrade failed; current unchanged', async () => {
    await dueUpgrade({ label: 'v2', runMs: 0, preUpgrade: [30] });
    const r = await t.cli(['run', 'start']);
    assertCoded(r, 80, 'CHAINVISOR_PREUPGRADE_FAILED');
    assert.equal(await t.current(), 'genesis');
  });

  test('81: the data backup failed; current unchanged', async () => {
    await dueUpgrade();
    execFileSync('mkfifo', [path.join(t.home, 'data', 'node.sock')]); // a file no copy can take
    const r = await t.cli(['run', 'start'], { UNSAFE_SKIP_BACKUP: 'false' });
    assertCoded(r, 81, 'CHAINVISOR_BACKUP_FAILED');
    assert.equal(await t.current(), 'genesis');
  });

  test('82: another chainvisor supervises this home', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const first = t.spawn(['run', 'start']);
    try {
      await waitFor(async () => (await t.journalLines()).includes('genesis start [start]'), 'the first node to start');
      assertCoded(await t.cli(['run', 'start']), 82, 'CHAINVISOR_HOME_LOCKED');
    } finally {
      first.kill('SIGTERM');
      await first;
    }
  });

  test("83: rehearse: the upgrade failed on the copy of this node's state", async () => {
    // One script for both binaries: the old one's in-place-testnet halts for v2, the new one's start panics.
    const node = path.join(t.root, 'rehearsal-node');
    await fs.writeFile(
      node,
      [
        '#!/bin/sh',
        'case "$1" in',
        '  pre-upgrade) exit 1 ;;',
        '  in-place-testnet)',
        '    if [ "$2" = "--help" ]; then echo "Usage: node in-place-testnet [newChainID] [newOperatorAddress] [flags]"; exit 0; fi',
        '    while [ $# -gt 0 ]; do if [ "$1" = "--home" ]; then home="$2"; fi; shift; done',
        '    printf \'{"name":"v2","height":11}\' > "$home/data/upgrade-info.json"; exit 2 ;;',
        '  start) echo "panic: cannot migrate" >&2; exit 2 ;;',
        'esac',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    await t.cliOk(['init', node]);
    await t.cliOk(['add-upgrade', 'v2', node]);
    await fs.mkdir(path.join(t.home, 'config'), { recursive: true });
    await fs.writeFile(path.join(t.home, 'config', 'genesis.json'), '{"chain_id":"fake-1"}');
    await fs.mkdir(path.join(t.home, 'data', 'application.db'), { recursive: true });
    await fs.writeFile(path.join(t.home, 'data', 'application.db', '000001.log'), 'x');
    const r = await t.cli(['rehearse', 'v2', '--timeout', '20s']);
    assert.equal(r.exitCode, ExitCode.rehearsalFailed, r.stderr);
    assert.match(r.stdout, /FAILED/);
    assert.match(r.stdout, /panic: cannot migrate/);
  });

  test("84: the validator's signing state is behind what this home signed; the node is not started", async () => {
    const state = (height: number) => JSON.stringify({ height: String(height), round: 0, step: 3 });
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 0 })]);
    await fs.mkdir(path.join(t.home, 'data'), { recursive: true });
    await fs.writeFile(path.join(t.home, 'data', 'priv_validator_state.json'), state(20));
    assert.equal((await t.cli(['run', 'start'])).exitCode, 0);
    await fs.writeFile(path.join(t.home, 'data', 'priv_validator_state.json'), state(10));
    assertCoded(await t.cli(['run', 'start']), 84, 'CHAINVISOR_SIGN_STATE_BEHIND');
    assert.equal((await t.journalLines()).filter((l) => l.startsWith('genesis start')).length, 1);
  });
});
