/**
 * Never two nodes of one home: the node a chainvisor killed with SIGKILL leaves running is stopped by
 * the next `run` before it starts its own; a stale node record (pid gone or reused) is ignored; a
 * damaged one stops the start (82) unless it predates the machine's boot (issue #31).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { nodeRecordPath, readNodeRecord, runIdVariable } from '../../src/guard/node-record.js';
import { layoutFor } from '../../src/home/layout/index.js';
import { isProcessAlive, processStartToken } from '../../src/shared/proc/index.js';
import { makeHome, type TestHome, waitFor } from '../support/home.js';

/** A fake node that writes its pid to the journal when it starts. */
const withPid = { onStart: 'echo "$L pid $$" >> "$J"' };

function pidsOf(lines: string[], label: string): number[] {
  return lines.flatMap((l) => {
    const m = new RegExp(`^${label} pid (\\d+)$`).exec(l);
    return m ? [Number(m[1])] : [];
  });
}

/** A long-running process that is not a node of this home (and ignores SIGTERM for none of it). */
function sleeper(env: Record<string, string> = {}) {
  const child = spawn('sleep', ['300'], { env: { ...process.env, ...env }, stdio: 'ignore' });
  return child;
}

describe('chainvisor run: the node a killed chainvisor left behind', () => {
  let t: TestHome;
  beforeEach(async () => {
    t = await makeHome();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  test('after kill -9 of chainvisor alone, the next run stops the orphan node before starting its own', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', ...withPid })]);
    const layout = layoutFor({ home: t.home, name: 'simd' });
    const first = t.spawn(['run', 'start']);
    await waitFor(async () => pidsOf(await t.journalLines(), 'genesis').length === 1, 'the first node started');
    const [orphan] = pidsOf(await t.journalLines(), 'genesis') as [number];
    await waitFor(async () => (await readNodeRecord(layout))?.pid === orphan, 'the node record names the node');
    const record = await readNodeRecord(layout);
    assert.equal(record?.startToken, await processStartToken(orphan), 'the record holds the start time');

    first.kill('SIGKILL');
    // The orphan keeps chainvisor's stdout open, so wait for the exit itself, not the end of the output.
    await new Promise((resolve) => first.once('exit', resolve));
    assert.ok(await isProcessAlive(orphan), 'the node outlived its chainvisor (it is a separate process)');

    const second = t.spawn(['run', 'start'], { DAEMON_SHUTDOWN_GRACE: '5s' });
    // The fake node writes its pid, then its start line: both, or the start line may not be there yet.
    const started = (lines: string[]) => pidsOf(lines, 'genesis').length === 2 && lines.filter((l) => l === 'genesis start [start]').length === 2;
    await waitFor(async () => started(await t.journalLines()), 'the new node started', 30_000);
    const lines = await t.journalLines();
    const [, fresh] = pidsOf(lines, 'genesis') as [number, number];
    assert.deepEqual(
      lines.filter((l) => !l.includes(' pid ')),
      ['genesis start [start]', 'genesis got TERM', 'genesis start [start]'],
      'the orphan was asked to stop (SIGTERM) and had stopped before the new node started',
    );
    assert.equal(await isProcessAlive(orphan), false, 'the orphan is gone');
    assert.ok(await isProcessAlive(fresh));
    await waitFor(async () => (await readNodeRecord(layout))?.pid === fresh, 'the record names the new node');

    second.kill('SIGTERM');
    const r = await second;
    assert.equal(r.exitCode, 143, r.all);
    assert.match(r.all ?? '', new RegExp(`the node started by an earlier chainvisor \\(pid ${orphan}, killed without stopping it\\) is still running`));
    assert.match(r.all ?? '', new RegExp(`the orphan node \\(pid ${orphan}\\) has stopped`));
    assert.match(r.all ?? '', new RegExp(`took over the home lock .*\\(pid ${first.pid}\\)`));
    await assert.rejects(fs.access(nodeRecordPath(layout)), { code: 'ENOENT' }, 'the record is removed once the node has exited');
    await first;
  });

  test('an orphan that ignores SIGTERM is killed after DAEMON_SHUTDOWN_GRACE', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', ignoreTerm: true, ...withPid })]);
    const first = t.spawn(['run', 'start']);
    await waitFor(async () => pidsOf(await t.journalLines(), 'genesis').length === 1, 'the first node started');
    const [orphan] = pidsOf(await t.journalLines(), 'genesis') as [number];
    const layout = layoutFor({ home: t.home, name: 'simd' });
    await waitFor(async () => (await readNodeRecord(layout))?.pid === orphan, 'the node record names the node');
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));

    const second = t.spawn(['run', 'start'], { DAEMON_SHUTDOWN_GRACE: '300ms' });
    await waitFor(async () => pidsOf(await t.journalLines(), 'genesis').length === 2, 'the new node started', 30_000);
    assert.equal(await isProcessAlive(orphan), false);
    second.kill('SIGKILL');
    await new Promise((resolve) => second.once('exit', resolve));
    const [, fresh] = pidsOf(await t.journalLines(), 'genesis') as [number, number];
    process.kill(fresh, 'SIGKILL');
    const r = await second;
    assert.match(r.all ?? '', /orphan node still running after the grace period; sending SIGKILL/);
    await first;
  });

  test('a record whose pid is dead is ignored', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 50, exitCode: 0 })]);
    const layout = layoutFor({ home: t.home, name: 'simd' });
    const gone = spawn('true');
    await new Promise((resolve) => gone.once('exit', resolve));
    await fs.mkdir(layout.stateDir, { recursive: true });
    await fs.writeFile(nodeRecordPath(layout), JSON.stringify({ runId: 'old', supervisorPid: 1, binary: 'x', pid: gone.pid, startToken: '1', startedAt: '' }));
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /orphan/);
    assert.deepEqual(await t.journalLines(), ['genesis start [start]', 'genesis exit 0']);
  });

  test('a record whose pid now belongs to another process (another start time) is ignored, and that process left alone', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 50, exitCode: 0 })]);
    const layout = layoutFor({ home: t.home, name: 'simd' });
    const other = sleeper();
    try {
      const token = await processStartToken(other.pid as number);
      assert.ok(token !== undefined);
      await fs.mkdir(layout.stateDir, { recursive: true });
      // Same pid, but the recorded node started at another time: the pid was reused.
      await fs.writeFile(
        nodeRecordPath(layout),
        JSON.stringify({ runId: 'old', supervisorPid: 1, binary: 'x', pid: other.pid, startToken: `${token}0`, startedAt: '' }),
      );
      const r = await t.cli(['run', 'start']);
      assert.equal(r.exitCode, 0, r.stderr);
      assert.match(r.stderr, new RegExp(`ignoring a stale node record: pid ${other.pid} now belongs to another process`));
      assert.ok(await isProcessAlive(other.pid as number), 'the unrelated process was not signalled');
      assert.deepEqual(await t.journalLines(), ['genesis start [start]', 'genesis exit 0']);
    } finally {
      other.kill('SIGKILL');
    }
  });

  test('same pid and start time but another run id in its environment: not the node, left alone', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 50, exitCode: 0 })]);
    const layout = layoutFor({ home: t.home, name: 'simd' });
    const other = sleeper({ [runIdVariable]: 'someone-else' });
    try {
      const token = await processStartToken(other.pid as number);
      await fs.mkdir(layout.stateDir, { recursive: true });
      await fs.writeFile(
        nodeRecordPath(layout),
        JSON.stringify({ runId: 'mine', supervisorPid: 1, binary: 'x', pid: other.pid, startToken: token, startedAt: '' }),
      );
      const r = await t.cli(['run', 'start']);
      assert.equal(r.exitCode, 0, r.stderr);
      assert.match(r.stderr, /ignoring a stale node record/);
      assert.ok(await isProcessAlive(other.pid as number));
    } finally {
      other.kill('SIGKILL');
    }
  });

  test('a FIFO where the lock record goes does not hang the start (the lock record only names a holder)', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 50, exitCode: 0 })]);
    const layout = layoutFor({ home: t.home, name: 'simd' });
    await fs.mkdir(layout.stateDir, { recursive: true });
    spawnSync('mkfifo', [path.join(layout.stateDir, 'lock.json')]);
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.deepEqual(await t.journalLines(), ['genesis start [start]', 'genesis exit 0']);
  });

  // A node record chainvisor did not write, left where the record of a still-running orphan is (issue #31).
  const damagedRecords: [string, (file: string) => Promise<void>][] = [
    ['{}', (file) => fs.writeFile(file, '{}')],
    ['zero bytes', (file) => fs.writeFile(file, '')],
    ['cut short', (file) => fs.writeFile(file, '{"runId":"ab12","supervisorPid":1,"bin')],
    ['naming pid -1 (every process)', (file) => fs.writeFile(file, JSON.stringify({ runId: 'r', supervisorPid: 1, binary: 'x', pid: -1, startedAt: '' }))],
    ['with the pid as a string', (file) => fs.writeFile(file, JSON.stringify({ runId: 'r', supervisorPid: 1, binary: 'x', pid: '123', startedAt: '' }))],
    ['with the run id twice', (file) => fs.writeFile(file, '{"runId":"a","runId":"b","supervisorPid":1,"binary":"x","startedAt":""}')],
    ['a FIFO', async (file) => void spawnSync('mkfifo', [file])],
    ['a folder', (file) => fs.mkdir(file)],
  ];
  for (const [name, damage] of damagedRecords) {
    test(`a node record that is ${name}, written since the machine started: 82, the node that may be running left alone, no second node`, async () => {
      // The node runs until stopped; started again with QUICK set, it exits at once.
      await t.cliOk(['init', await t.fakeNode({ label: 'genesis', onStart: `echo "$L pid $$" >> "$J"; [ -n "$QUICK" ] && exit 0` })]);
      const layout = layoutFor({ home: t.home, name: 'simd' });
      const first = t.spawn(['run', 'start']);
      await waitFor(async () => pidsOf(await t.journalLines(), 'genesis').length === 1, 'the first node started');
      const [orphan] = pidsOf(await t.journalLines(), 'genesis') as [number];
      await waitFor(async () => (await readNodeRecord(layout))?.pid === orphan, 'the node record names the node');
      first.kill('SIGKILL');
      await new Promise((resolve) => first.once('exit', resolve));
      try {
        await fs.rm(nodeRecordPath(layout));
        await damage(nodeRecordPath(layout));
        const r = await t.cli(['run', 'start'], { QUICK: '1' });
        assert.equal(r.exitCode, 82, r.stderr);
        assert.match(r.stderr, /code: CHAINVISOR_ORPHAN_NODE/);
        assert.match(
          r.stderr,
          /the record of the node the last chainvisor started, .*node\.json, cannot be read: .*; whether that node still runs cannot be told/,
        );
        assert.match(r.stderr, /hint: look for a node of this home still running .* then remove .*node\.json/);
        assert.doesNotMatch(r.stderr, /unexpected error|at .*\.js:\d+/);
        assert.ok(await isProcessAlive(orphan), 'the node was not signalled');
        assert.equal(pidsOf(await t.journalLines(), 'genesis').length, 1, 'no second node was started');
      } finally {
        process.kill(orphan, 'SIGKILL');
        await first;
      }
    });
  }

  test('a damaged node record written before the machine started is set aside with a warning: the node starts', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 50, exitCode: 0 })]);
    const layout = layoutFor({ home: t.home, name: 'simd' });
    await fs.mkdir(layout.stateDir, { recursive: true });
    // What a power cut leaves of a record written without a flush.
    await fs.writeFile(nodeRecordPath(layout), '');
    const beforeBoot = new Date(Date.now() - os.uptime() * 1000 - 3_600_000);
    await fs.utimes(nodeRecordPath(layout), beforeBoot, beforeBoot);
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.match(r.stderr, /ignoring the node record .*node\.json: it is empty \(0 bytes\); it was written before this machine started/);
    assert.deepEqual(await t.journalLines(), ['genesis start [start]', 'genesis exit 0']);
  });

  test(
    'killed between the spawn and the record of its pid: the run id in the environment finds the orphan',
    { skip: process.platform !== 'linux' },
    async () => {
      await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 50, exitCode: 0 })]);
      const layout = layoutFor({ home: t.home, name: 'simd' });
      const orphan = sleeper({ [runIdVariable]: 'run-without-pid' });
      const exited = new Promise((resolve) => orphan.once('exit', (_code, signal) => resolve(signal)));
      await fs.mkdir(layout.stateDir, { recursive: true });
      await fs.writeFile(nodeRecordPath(layout), JSON.stringify({ runId: 'run-without-pid', supervisorPid: 1, binary: 'x', startedAt: '' }));
      const r = await t.cli(['run', 'start']);
      assert.equal(r.exitCode, 0, r.stderr);
      assert.equal(await exited, 'SIGTERM');
      assert.match(r.stderr, new RegExp(`pid ${orphan.pid}, killed without stopping it`));
    },
  );
});
