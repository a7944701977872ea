/**
 * The switch rehearsed on a scratch home (src/supervisor/warm.ts): it goes through, and leaves nothing
 * behind — no folder in the temp folder, no process — and never touches the live home: no file written
 * there, none of its binaries run.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { loadConfig } from '../../src/config/index.js';
import { warmSwitch } from '../../src/supervisor/warm.js';
import { tryMountTmpfs } from '../support/tmpfs.js';

/** This process's children that have not ended (zombies are ended). */
async function liveChildren(): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await fs.readdir('/proc')) {
    const stat = await fs.readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[1] === String(process.pid) && fields[0] !== 'Z') found.push(Number(entry));
  }
  return found;
}

/** Every path under `dir` with its kind, size, mode, mtime and content: what a write would change. */
async function snapshot(dir: string): Promise<string[]> {
  const lines: string[] = [];
  for (const name of (await fs.readdir(dir, { recursive: true })).sort()) {
    const file = path.join(dir, name);
    const stat = await fs.lstat(file);
    const content = stat.isFile() ? await fs.readFile(file, 'utf8') : stat.isSymbolicLink() ? await fs.readlink(file) : '';
    lines.push(`${name} ${stat.mode} ${stat.size} ${stat.mtimeMs} ${content}`);
  }
  return lines;
}

/**
 * A live home halted for an upgrade (plan written, new binary installed), whose binaries record any run,
 * and TMPDIR pointed at a folder of the test's own.
 */
async function liveHome(t: { after(fn: () => Promise<void>): void }) {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'cv-warm-'));
  const home = path.join(root, 'home');
  const tmp = path.join(root, 'tmp');
  const ran = path.join(root, 'ran');
  const binary = `#!/bin/sh\necho "$0 $*" >> '${ran}'\n`;
  for (const dir of ['cosmovisor/genesis/bin', 'cosmovisor/upgrades/v2/bin', 'data']) await fs.mkdir(path.join(home, dir), { recursive: true });
  await fs.writeFile(path.join(home, 'cosmovisor/genesis/bin/simd'), binary, { mode: 0o755 });
  await fs.writeFile(path.join(home, 'cosmovisor/upgrades/v2/bin/simd'), binary, { mode: 0o755 });
  await fs.symlink('genesis', path.join(home, 'cosmovisor/current'));
  await fs.writeFile(path.join(home, 'data/upgrade-info.json'), '{"name":"v2","height":10}');
  await fs.mkdir(tmp);
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  t.after(async () => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    await fs.rm(root, { recursive: true, force: true });
  });
  // Settings that would make the live switch wait, back up, run a script or download: the rehearsal does none of it.
  const { config } = loadConfig({
    env: {
      DAEMON_HOME: home,
      DAEMON_NAME: 'simd',
      DAEMON_RESTART_DELAY: '1h',
      COSMOVISOR_CUSTOM_PREUPGRADE: 'pre.sh',
      DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true',
      DAEMON_PREUPGRADE_MAX_RETRIES: '5',
    },
  });
  return { config, home, tmp, ran };
}

test('rehearses the switch through on a scratch home; leaves no folder and no process; the live home is not touched, its binaries not run', async (t) => {
  const live = await liveHome(t);
  const before = await snapshot(live.home);
  assert.equal(await warmSwitch(live.config, new AbortController().signal), true);
  assert.deepEqual(await fs.readdir(live.tmp), [], 'the scratch home is removed');
  assert.deepEqual(await liveChildren(), [], 'no stand-in nor waiting shell is left');
  assert.deepEqual(await snapshot(live.home), before, 'the live home is as it was');
  await assert.rejects(fs.access(live.ran), { code: 'ENOENT' }, 'no binary of the live home ran');
});

test('given up (a switch begins): stops at once, leaving nothing behind', async (t) => {
  const live = await liveHome(t);
  const abort = new AbortController();
  abort.abort();
  assert.equal(await warmSwitch(live.config, abort.signal), false);
  assert.deepEqual(await fs.readdir(live.tmp), []);
  assert.deepEqual(await liveChildren(), []);
});

test('no temp folder to write in: not rehearsed, nothing thrown', async (t) => {
  const live = await liveHome(t);
  process.env.TMPDIR = path.join(live.tmp, 'missing');
  assert.equal(await warmSwitch(live.config, new AbortController().signal), false);
  assert.deepEqual(await liveChildren(), []);
});

test('a temp folder whose programs cannot run (noexec, as no /bin/sh in an image): not rehearsed, nothing thrown, nothing left', async (t) => {
  const live = await liveHome(t);
  const mount = path.join(live.tmp, 'noexec');
  await fs.mkdir(mount);
  if (!tryMountTmpfs(mount, '4m', undefined, ['noexec'])) {
    t.skip('cannot mount a tmpfs here (needs root and a host that allows mounts)');
    return;
  }
  try {
    process.env.TMPDIR = mount;
    // The stand-ins fail to start (EACCES): a spawn error, never an unhandled rejection.
    assert.equal(await warmSwitch(live.config, new AbortController().signal), false);
    assert.deepEqual(await fs.readdir(mount), []);
    assert.deepEqual(await liveChildren(), []);
  } finally {
    execFileSync('umount', [mount]);
  }
});
