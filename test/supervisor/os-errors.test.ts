/**
 * Operating-system errors an operator can hit end as coded errors with a hint and the documented
 * exit code (issue 8, item 14), each reproduced with the real CLI: DAEMON_HOME that is a file, a
 * symbolic link loop under upgrades/, a folder where the plan record goes, a full disk while the
 * plan is recorded (a real one, on a tiny tmpfs, where this host lets the test mount one), and a
 * folder chainvisor may not read (skipped as root, where permissions do not deny).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { type CliResult, type TestHome, makeHome } from '../support/home.js';

const isRoot = process.getuid?.() === 0;
const plan = JSON.stringify({ name: 'v2', time: '0001-01-01T00:00:00Z', height: 10 });

function assertCoded(r: CliResult, exitCode: number, code: string, message: RegExp): void {
  assert.equal(r.exitCode, exitCode, r.stderr);
  assert.match(r.stderr, new RegExp(`chainvisor: code: ${code}\\b`));
  assert.match(r.stderr, message);
  assert.match(r.stderr, /chainvisor: hint: /);
  assert.doesNotMatch(r.stderr, /unexpected error|^\s+at /m);
}

/** Tries to mount a tmpfs of `size` at `dir`; false where this host does not allow it. */
function tryMountTmpfs(dir: string, size: string): boolean {
  if (!isRoot) return false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('operating-system errors are coded errors', () => {
  let t: TestHome;
  beforeEach(async () => {
    t = await makeHome({ CHAINVISOR_PLAN_POLL_INTERVAL: '0s' });
  });
  afterEach(async () => {
    await t.cleanup();
  });

  /** genesis and v2 installed, the node's plan for v2 waiting in data/: `run` applies it at start-up. */
  async function homeWithDueUpgrade(home = t.home): Promise<void> {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 0 })]);
    await t.cliOk(['add-upgrade', 'v2', await t.fakeNode({ label: 'v2', runMs: 0 })]);
    await fs.mkdir(path.join(home, 'data'), { recursive: true });
    await fs.writeFile(path.join(home, 'data', 'upgrade-info.json'), plan);
  }

  test('DAEMON_HOME that is a file: init, config and run refuse with 78', async () => {
    const file = path.join(t.root, 'home-file');
    await fs.writeFile(file, 'not a folder');
    const node = await t.fakeNode({ label: 'genesis' });
    assertCoded(await t.cli(['init', node], { DAEMON_HOME: file }), 78, 'CHAINVISOR_LAYOUT_INVALID', /home-file is a regular file, not a folder/);
    for (const command of ['config', 'run']) {
      assertCoded(await t.cli([command], { DAEMON_HOME: file }), 78, 'CHAINVISOR_HOME_MISSING', /home-file\) is a regular file, not a folder/);
    }
  });

  test('a symbolic link loop under upgrades/: 78 naming the link, current unchanged', async () => {
    await homeWithDueUpgrade();
    const dir = path.join(t.home, 'cosmovisor', 'upgrades', 'v2');
    await fs.rm(dir, { recursive: true });
    await fs.symlink('v2', dir);
    const r = await t.cli(['run', 'start']);
    assertCoded(r, 78, 'CHAINVISOR_LAYOUT_INVALID', /upgrades\/v2\/bin\/simd is a symbolic link loop \(ELOOP/);
    assert.equal(await t.current(), 'genesis');
  });

  test('a folder where the plan record goes: the upgrade fails with 79 before the switch', async () => {
    await homeWithDueUpgrade();
    await fs.mkdir(path.join(t.home, 'cosmovisor', 'upgrades', 'v2', 'upgrade-info.json'));
    const r = await t.cli(['run', 'start']);
    assertCoded(r, 79, 'CHAINVISOR_RECORD_FAILED', /could not record the plan of upgrade "v2" in .*upgrades\/v2\/upgrade-info\.json: EISDIR/);
    assert.equal(await t.current(), 'genesis');
  });

  test('a FIFO where show-upgrade-info reads the plan record: 78, never a hang', async () => {
    await homeWithDueUpgrade();
    assert.equal((await t.cli(['run', 'start'])).exitCode, 0, 'the upgrade is applied');
    const record = path.join(t.home, 'cosmovisor', 'upgrades', 'v2', 'upgrade-info.json');
    await fs.rm(record);
    execFileSync('mkfifo', [record]);
    assertCoded(await t.cli(['show-upgrade-info']), 78, 'CHAINVISOR_UPGRADE_INFO_INVALID', /upgrade-info\.json: it is a FIFO/);
  });

  test('a full disk while the plan is recorded (ENOSPC): 79 with the fix, current unchanged', async (ctx) => {
    const mount = path.join(t.root, 'small-disk');
    await fs.mkdir(mount);
    if (!tryMountTmpfs(mount, '256k')) {
      ctx.skip('cannot mount a small tmpfs here (needs root and a host that allows mounts)');
      return;
    }
    try {
      const home = path.join(mount, 'home');
      t.env.DAEMON_HOME = home;
      await fs.mkdir(home);
      await homeWithDueUpgrade(home);
      // Fill what is left of the disk.
      const filler = await fs.open(path.join(mount, 'filler'), 'w');
      try {
        for (;;) await filler.write(Buffer.alloc(4096));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      } finally {
        await filler.close();
      }
      const r = await t.cli(['run', 'start']);
      assertCoded(r, 79, 'CHAINVISOR_RECORD_FAILED', /upgrades\/v2\/upgrade-info\.json: ENOSPC/);
      assert.match(r.stderr, /hint: free disk space/);
      assert.equal(await fs.readlink(path.join(home, 'cosmovisor', 'current')), 'genesis');
    } finally {
      execFileSync('umount', [mount]);
    }
  });

  test('an upgrade folder chainvisor may not read (EACCES): 78 naming it', { skip: isRoot ? 'permissions do not deny root' : false }, async () => {
    await homeWithDueUpgrade();
    const dir = path.join(t.home, 'cosmovisor', 'upgrades', 'v2');
    await fs.chmod(dir, 0o000);
    try {
      const r = await t.cli(['run', 'start']);
      assertCoded(r, 78, 'CHAINVISOR_LAYOUT_INVALID', /upgrades\/v2\/bin\/simd cannot be accessed \(permission denied\)/);
      assert.equal(await t.current(), 'genesis');
    } finally {
      await fs.chmod(dir, 0o755);
    }
  });
});
