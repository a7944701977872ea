/**
 * What chainvisor holds at rest, and the release files as shipped (#33). An idle `run` is what a
 * validator keeps in memory for months: it must not load what only an upgrade needs (downloads,
 * archives, the process runner, metrics when off). Through bin/chainvisor.js the modules it loads
 * are listed and checked; through the release executable (CHAINVISOR_TEST_EXECUTABLE) its private
 * memory is (the executable once held 41 MiB at rest, against 26 MiB before, because it evaluated
 * every module it carries at the first command that needed one), and so are the files themselves:
 * no Node.js needed, SHA256SUMS, and the arm64 file under qemu user-mode emulation.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import { apartPackages } from '../../scripts/release-bundle.js';
import { chainvisorBin, chainvisorCommand, chainvisorExecutable } from '../support/chainvisor-command.js';

const traceHook = fileURLToPath(new URL('../support/module-trace.js', import.meta.url));

/** A home with a fake node that sleeps, and `chainvisor run start` on it until it has started the node and settled. */
async function idleRun(t: { after(fn: () => Promise<void>): void }, env: NodeJS.ProcessEnv, nodeArgs: string[] = []) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cv-at-rest-'));
  const binary = path.join(dir, 'fake');
  await fs.writeFile(binary, '#!/bin/sh\nexec sleep 1000\n', { mode: 0o755 });
  const home = path.join(dir, 'home');
  await fs.mkdir(home);
  const base = { ...process.env, DAEMON_HOME: home, DAEMON_NAME: 'fake', UNSAFE_SKIP_BACKUP: 'true', ...env };
  const [file, args] = chainvisorCommand(['init', binary]);
  assert.equal(spawnSync(file, args, { env: base }).status, 0);
  const [runFile, runArgs] = chainvisorCommand(['run', 'start']);
  const child = spawn(nodeArgs.length === 0 ? runFile : process.execPath, nodeArgs.length === 0 ? runArgs : [...nodeArgs, chainvisorBin, 'run', 'start'], {
    env: base,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  t.after(async () => {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)));
    await fs.rm(dir, { recursive: true, force: true });
  });
  for (let i = 0; i < 200 && !log.includes('starting node'); i++) await sleep(50);
  assert.match(log, /starting node/, log);
  await sleep(3000); // the plan watch's first look at the chain, the sign guard's first reading
  return { pid: child.pid as number, dir, log: () => log };
}

test('an idle run loads none of the packages kept out of memory at rest', { skip: chainvisorExecutable && 'the executable: its memory is checked instead' }, async (t) => {
  const trace = path.join(os.tmpdir(), `cv-trace-${process.pid}-${Date.now()}`);
  t.after(() => fs.rm(trace, { force: true }));
  await idleRun(t, { CHAINVISOR_TEST_MODULE_TRACE: trace }, ['--import', traceHook]);
  const loaded = (await fs.readFile(trace, 'utf8')).split('\n');
  assert.ok(loaded.some((url) => url.includes('/supervisor/')), 'the trace saw the supervisor load');
  for (const name of apartPackages) {
    const found = loaded.filter((url) => url.includes(`/node_modules/${name}/`));
    assert.deepEqual(found, [], `${name} is loaded by an idle run`);
  }
});

test('the executable at rest holds at most 28 MiB of private memory', { skip: !chainvisorExecutable && 'run through the release executable only' }, async (t) => {
  const run = await idleRun(t, {});
  const status = await fs.readFile(`/proc/${run.pid}/status`, 'utf8');
  const kib = Number(/^RssAnon:\s+(\d+) kB$/m.exec(status)?.[1]);
  assert.ok(kib > 0, status);
  t.diagnostic(`RssAnon ${(kib / 1024).toFixed(1)} MiB at rest`);
  assert.ok(kib <= 28 * 1024, `RssAnon ${(kib / 1024).toFixed(1)} MiB at rest`);
});

test('the executable runs with no Node.js on the machine', { skip: !chainvisorExecutable && 'run through the release executable only' }, () => {
  const r = spawnSync(chainvisorExecutable as string, ['--version'], { env: { PATH: '/nonexistent' }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^chainvisor version: \d+\.\d+\.\d+/);
});

test('SHA256SUMS holds the digest of both files', { skip: !chainvisorExecutable && 'run through the release executable only' }, async () => {
  const dir = path.dirname(chainvisorExecutable as string);
  const sums = (await fs.readFile(path.join(dir, 'SHA256SUMS'), 'utf8')).trim().split('\n');
  assert.deepEqual(
    sums.map((line) => line.split(/\s+/)[1]),
    ['chainvisor-linux-x64', 'chainvisor-linux-arm64'],
  );
  for (const line of sums) {
    const [digest, name] = line.split(/\s+/) as [string, string];
    assert.equal(createHash('sha256').update(await fs.readFile(path.join(dir, name))).digest('hex'), digest, name);
  }
});

test('the arm64 file runs under qemu user-mode emulation', { skip: !chainvisorExecutable && 'run through the release executable only' }, (t) => {
  const arm64 = path.join(path.dirname(chainvisorExecutable as string), 'chainvisor-linux-arm64');
  const qemu = spawnSync('qemu-aarch64-static', ['-L', '/usr/aarch64-linux-gnu', arm64, '--version'], { encoding: 'utf8', timeout: 120_000 });
  if (qemu.error && (qemu.error as NodeJS.ErrnoException).code === 'ENOENT') {
    console.log('!!! SKIPPED: qemu-aarch64-static is not installed (.ci/run installs qemu-user-static and the arm64 libraries)');
    t.skip('qemu-aarch64-static is not installed');
    return;
  }
  assert.equal(qemu.status, 0, qemu.stderr);
  assert.match(qemu.stdout, /^chainvisor version: \d+\.\d+\.\d+/);
});
