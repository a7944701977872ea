/** Download work folders left by a kill are removed at the next `run` start — once it holds the lock. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { gzip, tar } from '../../../scripts/make-hostile-archives.js';
import { hostPlatform } from '../../../src/download/index.js';
import { removeLeftoverWorkFolders } from '../../../src/home/layout/index.js';
import { binariesInfo, memoryLogger, tempDir, withChecksum } from '../../support/download-kit.js';
import { fakeNodeScript, plan } from '../../support/fake-node.js';
import { type FaultServer, startFaultServer } from '../../support/fault-server.js';
import { makeHome, type TestHome, waitFor } from '../../support/home.js';

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid as number;
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

describe('chainvisor run: leftover download work folders', () => {
  let t: TestHome;
  beforeEach(async () => {
    t = await makeHome();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  test('removed at start, beside upgrades/ and inside it, with a log line naming each', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 50, exitCode: 0 })]);
    const pid = await deadPid();
    const root = path.join(t.home, 'cosmovisor');
    const beside = path.join(root, `.download-${pid}-0badf00d-v2`);
    const inside = path.join(root, 'upgrades', `.download-${pid}-deadbeef-v3`);
    for (const dir of [beside, inside]) {
      await fs.mkdir(path.join(dir, 'tree', 'bin'), { recursive: true });
      await fs.writeFile(path.join(dir, 'tree', 'bin', 'simd'), 'half an archive');
    }
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(await exists(beside), false);
    assert.equal(await exists(inside), false);
    assert.ok(r.stderr.includes(`removed the work folder of an interrupted download: ${beside}`), r.stderr);
    assert.ok(r.stderr.includes(`removed the work folder of an interrupted download: ${inside}`), r.stderr);
    assert.ok(await exists(path.join(root, 'upgrades')), 'upgrades/ itself stays');
  });

  test('a second run, refused by the lock, removes nothing of the first', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const first = t.spawn(['run', 'start']);
    try {
      await waitFor(async () => (await t.journalLines()).some((l) => l.startsWith('genesis start')), 'the first node started');
      // As far as a second run could tell, this folder's owner is gone; only the lock protects it.
      const folder = path.join(t.home, 'cosmovisor', `.download-${await deadPid()}-00000000-v2`);
      await fs.mkdir(folder);
      const second = await t.cli(['run', 'start']);
      assert.equal(second.exitCode, 82, second.stderr);
      assert.ok(await exists(folder), 'the refused run removed nothing');
    } finally {
      first.kill('SIGTERM');
      await first;
    }
  });
});

describe('which work folders are leftovers', () => {
  test("a dead or reused pid's folder goes; one in use by this process stays", async (t) => {
    const dir = await tempDir(t);
    const log = memoryLogger();
    const live = path.join(dir, `.download-${process.pid}-11111111-v2`);
    const dead = path.join(dir, `.download-${await deadPid()}-22222222-v2`);
    const unnamed = path.join(dir, '.download-garbage');
    const other = path.join(dir, 'not-a-work-folder');
    const sleeper = spawn('sleep', ['300'], { stdio: 'ignore' });
    t.after(() => sleeper.kill('SIGKILL'));
    // Written an hour before its pid's process started: that pid was reused since.
    const reused = path.join(dir, `.download-${sleeper.pid}-33333333-v2`);
    for (const folder of [live, dead, unnamed, other, reused]) await fs.mkdir(folder);
    const anHourAgo = new Date(Date.now() - 3600_000);
    await fs.utimes(reused, anHourAgo, anHourAgo);
    const removed = await removeLeftoverWorkFolders({ parents: [dir], logger: log.logger, keep: new Set([live]) });
    assert.deepEqual(removed.sort(), [dead, unnamed, ...(process.platform === 'linux' ? [reused] : [])].sort());
    assert.ok(await exists(live));
    assert.ok(await exists(other));
  });

  test("a folder whose pid is alive and started before it is that process's own: it stays (prepare-upgrade beside a run)", async (t) => {
    const dir = await tempDir(t);
    const log = memoryLogger();
    const sleeper = spawn('sleep', ['300'], { stdio: 'ignore' });
    t.after(() => sleeper.kill('SIGKILL'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const owned = path.join(dir, `.download-${sleeper.pid}-44444444-v2`);
    await fs.mkdir(owned);
    assert.deepEqual(await removeLeftoverWorkFolders({ parents: [dir], logger: log.logger }), []);
    assert.ok(await exists(owned));
  });
});

describe('chainvisor run: a download killed half-way', () => {
  let t: TestHome;
  let server: FaultServer;
  beforeEach(async () => {
    t = await makeHome({ DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true' });
    server = await startFaultServer();
  });
  afterEach(async () => {
    await server.close();
    await t.cleanup();
  });

  test('chainvisor killed with SIGKILL mid-download: the next run removes the work folder it left', async () => {
    const v2 = fakeNodeScript({ label: 'v2', journal: t.journal, runMs: 50, exitCode: 0 });
    const archive = gzip(
      tar([
        { name: 'bin/simd', body: v2, mode: 0o755 },
        { name: 'lib/big.so', body: randomBytes(256 * 1024) },
      ]),
    );
    // The body stops after 100 KiB and the connection stays open: the download hangs there.
    server.route('/v2.tar.gz', { body: archive, always: { kind: 'stall', afterBytes: 100 * 1024 } });
    const info = binariesInfo({ [hostPlatform()]: withChecksum(server.url('/v2.tar.gz'), archive) });
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10, info), style: 'exit' } })]);
    const root = path.join(t.home, 'cosmovisor');
    const workFolders = async () => (await fs.readdir(root)).filter((n) => n.startsWith('.download-'));

    const first = t.spawn(['run', 'start']);
    await waitFor(async () => (await workFolders()).length === 1 && server.requests.length > 0, 'the download started');
    const [left] = (await workFolders()) as [string];
    first.kill('SIGKILL');
    await first;
    assert.deepEqual(await workFolders(), [left], 'the kill left the work folder behind');

    // The binary is installed by hand meanwhile: the next start needs no download at all.
    await t.cliOk(['add-upgrade', 'v2', await t.fakeNode({ label: 'v2', runMs: 50, exitCode: 0 })]);
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.deepEqual(await workFolders(), []);
    assert.ok(r.stderr.includes(`removed the work folder of an interrupted download: ${path.join(root, left)}`), r.stderr);
    assert.equal(await t.current(), 'upgrades/v2');
  });
});
