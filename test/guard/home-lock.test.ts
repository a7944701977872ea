/** One supervisor per home: the lock `chainvisor run` holds, refused and taken over. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { pino } from 'pino';

import { acquireHomeLock, type LockMode, lockRecordPath } from '../../src/guard/home-lock.js';
import { layoutFor } from '../../src/home/layout/index.js';
import { createLogger } from '../../src/shared/log.js';
import { makeHome, type TestHome, waitFor } from '../support/home.js';

const quiet = createLogger({ disabled: true });

describe('chainvisor run: one supervisor per home', () => {
  let t: TestHome;
  beforeEach(async () => {
    t = await makeHome();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  test('a second run on the same home exits 82 at once, naming the first one, with no socket warning; the node starts only once', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const first = t.spawn(['run', 'start']);
    try {
      await waitFor(async () => (await t.journalLines()).some((l) => l.startsWith('genesis start')), 'the first node started');
      const second = await t.cli(['run', 'start']);
      assert.equal(second.exitCode, 82, second.stderr);
      assert.match(second.stderr, /chainvisor: code: CHAINVISOR_HOME_LOCKED/);
      assert.match(second.stderr, new RegExp(`another chainvisor \\(pid ${first.pid}\\b`));
      assert.match(second.stderr, new RegExp(`hint: stop it first \\(kill -TERM ${first.pid}`));
      // The expected EADDRINUSE is the refusal itself, not a socket error to warn about first.
      assert.doesNotMatch(second.stderr, /home lock socket error|EADDRINUSE/);
      assert.deepEqual(
        (await t.journalLines()).filter((l) => l.includes(' start')),
        ['genesis start [start]'],
        'the second run started no node',
      );
      const record = JSON.parse(await fs.readFile(lockRecordPath(layoutFor({ home: t.home, name: 'simd' })), 'utf8'));
      assert.equal(record.pid, first.pid, 'the lock record names the holder');
    } finally {
      first.kill('SIGTERM');
      await first;
    }
    // Released on a clean exit: the next run gets it.
    const again = t.spawn(['run', 'start']);
    await waitFor(async () => (await t.journalLines()).filter((l) => l.startsWith('genesis start')).length === 2, 'the node started again');
    again.kill('SIGTERM');
    const r = await again;
    assert.equal(r.exitCode, 143, r.all);
  });

  test('the lock of a chainvisor killed with SIGKILL is taken over', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const first = t.spawn(['run', 'start']);
    await waitFor(async () => (await t.journalLines()).some((l) => l.startsWith('genesis start')), 'the first node started');
    first.kill('SIGKILL');
    // Not `await first`: the orphaned node still holds chainvisor's stdout, so the output never ends.
    await new Promise((resolve) => first.once('exit', resolve));
    const second = t.spawn(['run', 'start']);
    await waitFor(async () => (await t.journalLines()).filter((l) => l.startsWith('genesis start')).length === 2, 'the second node started');
    second.kill('SIGTERM');
    const r = await second;
    assert.equal(r.exitCode, 143, r.all);
    assert.match(r.all ?? '', new RegExp(`took over the home lock left by a chainvisor that is no longer running \\(pid ${first.pid}\\)`));
    await first;
  });

  test('a damaged lock record names no one and stops nothing; a live holder is named by its own answer (issue #31)', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', onStart: '[ -n "$QUICK" ] && exit 0' })]);
    const record = lockRecordPath(layoutFor({ home: t.home, name: 'simd' }));
    await fs.mkdir(path.dirname(record), { recursive: true });
    for (const text of ['{"pid": -5, "startedAt": "", "version": "", "home": ""}', '{"pid": "12"}', '', '['.repeat(100_000)]) {
      await fs.writeFile(record, text);
      const r = await t.cli(['run', 'start'], { QUICK: '1' });
      assert.equal(r.exitCode, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /took over the home lock|unexpected error/, `lock record ${text.slice(0, 40)}`);
    }
    const first = t.spawn(['run', 'start']);
    try {
      await waitFor(async () => (await t.journalLines()).filter((l) => l.startsWith('genesis start')).length === 1, 'the first node started');
      await fs.writeFile(record, JSON.stringify({ pid: 1, startedAt: 'then', version: 'forged', home: t.home }));
      const second = await t.cli(['run', 'start'], { QUICK: '1' });
      assert.equal(second.exitCode, 82, second.stderr);
      assert.match(second.stderr, new RegExp(`another chainvisor \\(pid ${first.pid}\\b`));
      assert.doesNotMatch(second.stderr, /forged|kill -TERM 1\b/);
    } finally {
      first.kill('SIGTERM');
      await first;
    }
  });

  test('the same home through a symbolic link is the same home', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const link = path.join(t.root, 'home-link');
    await fs.symlink(t.home, link);
    const first = t.spawn(['run', 'start']);
    try {
      await waitFor(async () => (await t.journalLines()).some((l) => l.startsWith('genesis start')), 'the first node started');
      const second = await t.cli(['run', 'start'], { DAEMON_HOME: link });
      assert.equal(second.exitCode, 82, second.stderr);
    } finally {
      first.kill('SIGTERM');
      await first;
    }
  });

  test('another home is not locked', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const other = await makeHome();
    try {
      await other.cliOk(['init', await other.fakeNode({ label: 'other' })]);
      const first = t.spawn(['run', 'start']);
      const second = other.spawn(['run', 'start']);
      await waitFor(async () => (await t.journalLines()).some((l) => l.startsWith('genesis start')), 'the first node started');
      await waitFor(async () => (await other.journalLines()).some((l) => l.startsWith('other start')), 'the second node started');
      first.kill('SIGTERM');
      second.kill('SIGTERM');
      assert.equal((await first).exitCode, 143);
      assert.equal((await second).exitCode, 143);
    } finally {
      await other.cleanup();
    }
  });
});

for (const mode of ['abstract', 'socket-file'] as LockMode[]) {
  describe(`home lock (${mode})`, () => {
    let t: TestHome;
    beforeEach(async () => {
      t = await makeHome();
      await fs.mkdir(path.join(t.home, 'cosmovisor'), { recursive: true });
    });
    afterEach(async () => {
      await t.cleanup();
    });

    test(
      'held until released, then free again; the refusal logs no socket warning',
      { skip: mode === 'abstract' && process.platform !== 'linux' },
      async () => {
        const layout = layoutFor({ home: t.home, name: 'simd' });
        const lock = await acquireHomeLock({ layout, version: '9.9.9', logger: quiet, mode });
        const lines: string[] = [];
        const recording = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
        await assert.rejects(acquireHomeLock({ layout, version: '9.9.9', logger: recording, mode }), (error: Error & { code?: string; exitCode?: number }) => {
          assert.equal(error.code, 'CHAINVISOR_HOME_LOCKED');
          assert.equal(error.exitCode, 82);
          assert.match(error.message, new RegExp(`pid ${process.pid}, version 9\\.9\\.9`));
          return true;
        });
        assert.deepEqual(lines, [], 'a refused lock logs nothing: the error says it all');
        await lock.release();
        await assert.rejects(fs.access(lockRecordPath(layout)), { code: 'ENOENT' }, 'the record goes with the lock');
        const again = await acquireHomeLock({ layout, version: '9.9.9', logger: quiet, mode });
        await again.release();
      },
    );
  });
}

test('socket-file lock: a socket file left by a killed holder is stale and taken over', async (t) => {
  const home = await makeHome();
  t.after(() => home.cleanup());
  const layout = layoutFor({ home: home.home, name: 'simd' });
  await fs.mkdir(layout.stateDir, { recursive: true });
  const socket = path.join(layout.stateDir, 'lock.sock');
  // A process listens on the socket file, then dies without closing it: the file stays.
  const holder = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(socket)}, () => console.log('ready'))`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
  holder.kill('SIGKILL');
  await new Promise((resolve) => holder.once('exit', resolve));
  assert.ok((await fs.lstat(socket)).isSocket(), 'the stale socket file is still there');
  const lock = await acquireHomeLock({ layout, version: '1', logger: quiet, mode: 'socket-file' });
  assert.equal(lock.address, socket);
  await assert.rejects(acquireHomeLock({ layout, version: '1', logger: quiet, mode: 'socket-file' }), { code: 'CHAINVISOR_HOME_LOCKED' });
  await lock.release();
});
