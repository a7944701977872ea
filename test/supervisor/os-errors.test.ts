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
import { afterEach, beforeEach, describe, test, type TestContext } from 'node:test';

import { type CliResult, makeHome, type TestHome } from '../support/home.js';
import { tryMountTmpfs } from '../support/tmpfs.js';

const isRoot = process.getuid?.() === 0;
const plan = JSON.stringify({ name: 'v2', time: '0001-01-01T00:00:00Z', height: 10 });

function assertCoded(r: CliResult, exitCode: number, code: string, message: RegExp): void {
  assert.equal(r.exitCode, exitCode, r.stderr);
  assert.match(r.stderr, new RegExp(`chainvisor: code: ${code}\\b`));
  assert.match(r.stderr, message);
  assert.match(r.stderr, /chainvisor: hint: /);
  assert.doesNotMatch(r.stderr, /unexpected error|^\s+at /m);
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
    const mount = await smallDiskHome(ctx, '256k');
    if (!mount) return;
    try {
      const home = t.env.DAEMON_HOME as string;
      await homeWithDueUpgrade(home);
      await fill(mount, 'bytes');
      const r = await t.cli(['run', 'start']);
      assertCoded(r, 79, 'CHAINVISOR_RECORD_FAILED', /upgrades\/v2\/upgrade-info\.json: ENOSPC/);
      assert.match(r.stderr, /hint: free disk space/);
      assert.equal(await fs.readlink(path.join(home, 'cosmovisor', 'current')), 'genesis');
    } finally {
      execFileSync('umount', [mount]);
    }
  });

  /**
   * A tiny tmpfs under the test's folder with the home inside it (DAEMON_HOME points there); returns the
   * mount point to unmount, or undefined (the test skipped) where this host does not allow the mount.
   */
  async function smallDiskHome(ctx: TestContext, size: string, inodes?: number): Promise<string | undefined> {
    const mount = path.join(t.root, 'small-disk');
    await fs.mkdir(mount);
    if (!tryMountTmpfs(mount, size, inodes)) {
      ctx.skip('cannot mount a small tmpfs here (needs root and a host that allows mounts)');
      return undefined;
    }
    t.env.DAEMON_HOME = path.join(mount, 'home');
    await fs.mkdir(t.env.DAEMON_HOME);
    return mount;
  }

  /** Fills the filesystem at `dir`: its bytes with one file, or its inodes with empty files. */
  async function fill(dir: string, what: 'bytes' | 'inodes'): Promise<void> {
    try {
      if (what === 'inodes') {
        for (let i = 0; ; i++) await fs.writeFile(path.join(dir, `filler-${i}`), '');
      }
      const filler = await fs.open(path.join(dir, 'filler'), 'w');
      try {
        for (;;) await filler.write(Buffer.alloc(4096));
      } finally {
        await filler.close();
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    }
  }

  /** chainvisor's JSON log lines at warning level and above. */
  function warnings(stderr: string): Array<{ msg: string; err?: Record<string, unknown> }> {
    return stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; err?: Record<string, unknown> })
      .filter((line) => line.level >= 40);
  }

  for (const what of ['inodes', 'bytes'] as const) {
    test(`a disk out of ${what} under cosmovisor/.chainvisor: warnings that say ENOSPC, with no stack, and the node runs`, async (ctx) => {
      const mount = await smallDiskHome(ctx, '512k', what === 'inodes' ? 64 : undefined);
      if (!mount) return;
      try {
        await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 300 })]);
        await fill(mount, what);
        const r = await t.cli(['run', 'start'], { CHAINVISOR_LOG_FORMAT: 'json' });
        assert.equal(r.exitCode, 0, r.stderr);
        assert.ok((await t.journalLines()).includes('genesis start [start]'));
        const lines = warnings(r.stderr);
        assert.ok(
          lines.some((l) => /could not write the status file/.test(l.msg)),
          r.stderr,
        );
        for (const line of lines) {
          assert.equal(line.err?.code, 'ENOSPC', `${line.msg}: ${JSON.stringify(line.err)}`);
          assert.equal(line.err?.stack, undefined, `a warning has no stack: ${line.msg}`);
        }
        assert.doesNotMatch(r.stderr, /ENOENT|node:internal/);
      } finally {
        execFileSync('umount', [mount]);
      }
    });
  }

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
