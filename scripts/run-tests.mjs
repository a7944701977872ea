#!/usr/bin/env node
// Runs every compiled test file (dist/test/**/*.test.js and the simulated node's
// packages/simd/dist/test/**/*.test.js) with node's test runner, on whichever node
// runs this script. Node 22+ no longer accepts a folder as `node --test dist/test/`, and glob
// support differs between versions, so the file list is built here: the same files on 22, 24, 26.
// The files run through node:test's run(), the slowest first (the list `slowFirst` below), then the
// others alphabetically; `--test-concurrency=N` sets how many at a time. Any other argument before `--`
// (--test-name-pattern=…, --test-reporter=…) is passed to `node --test` before the files instead, which
// then runs them in its own, alphabetical order. Folders or files given after `--` narrow the run:
// `node scripts/run-tests.mjs -- dist/test/cli`.
// With CHAINVISOR_TEST_EXECUTABLE=<file> (the release executable), the tests run that file as the
// `chainvisor` command instead of bin/chainvisor.js, and only the tests that run the command are run:
// those that import test/support/chainvisor-command.ts, directly or through other test files.
//
// `--build --lint` (what `npm test` gives) runs `npm run build`, then the tests, with `npm run lint`
// beside both instead of before them: the type-aware lint and the formatter's check take a core for
// about a minute, while the compiler uses one core and most test files spend their time waiting on the
// processes and servers they start. The lint's output is printed after the tests', and either failing
// fails the run.
//
// The chainvisor command and the simulated node's binaries run from bundles of the compiled code, made
// at the start (scripts/test-bundles.mjs): a start then reads a few files instead of a few hundred.
//
// Every Node process of the run (test files, the chainvisor command, the simulated node's binaries)
// shares Node's on-disk compile cache, in a temporary folder made for the run and removed at its end
// (NODE_COMPILE_CACHE, unless set already); the test files share the data that takes seconds to build
// the same way (CHAINVISOR_TEST_FIXTURE_CACHE).
//
// Files run two more than there are cores at a time (at least four): a good part of a file's time is
// spent waiting on the processes, servers and blocks it starts, so with one per core a core stood idle
// that long (2 cores: 583 s for 808 CPU-s; three at a time, 445 s). Four at a time on 2 cores first
// made the end-to-end files that wait on a simulated chain's blocks and halts miss their windows (the
// after-upgrade follow, the background rehearsal); since set-up steps run in the test's own process,
// the gRPC client loads only when the node listens and the temporary files are in memory, the run takes
// 580 CPU-s instead of 810 and four at a time passed every run (tests alone on 2 cores: 366 s at three,
// 320 s at four). Five took 302 s alone, but with the lint beside it no less time than four, and the
// background rehearsal missed its window again in one of eight runs: four it stays.
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run as runFiles } from 'node:test';
import { spec, tap } from 'node:test/reporters';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const split = argv.indexOf('--');
const ownFlags = ['--lint', '--build'];
const before = split === -1 ? argv : argv.slice(0, split);
const lint = before.includes('--lint');
const build = before.includes('--build');
const flags = before.filter((f) => !ownFlags.includes(f));
const roots = split === -1 ? ['dist/test', 'packages/simd/dist/test'] : argv.slice(split + 1);

const children = [];
/** The children that lead a process group of their own (the captured ones). */
const groups = new Set();
const aborted = new AbortController();

/**
 * Runs a command; resolves to its exit code (1 when killed), with what it printed when `capture`. A
 * captured command runs in its own process group, so that stopping it stops what it started (npm's
 * `sh` would leave eslint running).
 */
function run(command, args, capture, niceness = 0) {
  const child = spawn(command, args, { stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit', detached: capture });
  children.push(child);
  if (capture) groups.add(child);
  if (niceness !== 0 && child.pid !== undefined) os.setPriority(child.pid, niceness);
  const output = [];
  if (capture) for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => output.push(chunk));
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ code: 1, output: [Buffer.from(`${command}: ${error.message}\n`)] }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

/**
 * The files through node:test's run(), which starts them in the order given (`node --test` sorts its
 * files by name), with the reporter `node --test` would use here: spec on a terminal, and from Node 23
 * on everywhere; TAP otherwise. Resolves to 1 when any test failed (or a file did not load), else 0.
 */
function runInOrder() {
  let failed = false;
  const stream = runFiles({ files, concurrency, signal: aborted.signal });
  stream.on('test:fail', () => (failed = true));
  const reporter = process.stdout.isTTY || Number(process.versions.node.split('.')[0]) >= 23 ? new spec() : tap;
  const out = stream.compose(reporter);
  out.pipe(process.stdout);
  return new Promise((resolve) => out.on('end', () => resolve({ code: failed || aborted.signal.aborted ? 1 : 0 })));
}

/** Stops every command still running, each with what it started. */
function stopChildren(signal) {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) continue;
    try {
      if (groups.has(child)) process.kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      // Gone already.
    }
  }
}
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    aborted.abort();
    stopChildren(signal);
  });
// Whatever ends the run (a failed build, no test files, a bundle that cannot be made), the lint ends with it.
process.on('exit', () => stopChildren('SIGTERM'));
// npm's own npm when run by `npm test` (npm_execpath), else the one on PATH.
const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
/** `npm run <script>`, stopping the run when it fails. */
async function buildStep(script) {
  const built = await run(npm[0], [...npm[1], 'run', '--silent', script], false);
  if (built.code !== 0) {
    console.error(`run-tests: npm run ${script} failed (exit code ${built.code})`);
    process.exit(built.code);
  }
}
// `--build` (what `npm test` gives): `npm run build`'s two steps before the test files are listed. The
// lint starts between them: it reads the simulated node's compiled types (@chainvisor/simd), which the
// first step writes, and not chainvisor's, which the second writes beside it on the other core.
if (build) await buildStep('build:simd');
// At a lower priority (its processes inherit it), so that it takes the cores the build and the tests
// leave idle and never delays a test waiting on its timers.
const linted = lint ? run(npm[0], [...npm[1], 'run', '--silent', 'lint'], true, 10) : Promise.resolve({ code: 0, output: [] });
if (build) await buildStep('build:main');

function collect(entry, out) {
  if (statSync(entry).isDirectory()) {
    for (const name of readdirSync(entry).sort()) collect(path.join(entry, name), out);
  } else if (entry.endsWith('.test.js')) {
    out.push(entry);
  }
  return out;
}

/** Whether `file` imports dist/test/support/chainvisor-command.js, directly or through its relative imports. */
function runsCommand(file, seen = new Set()) {
  if (seen.has(file)) return false;
  seen.add(file);
  if (file.endsWith(path.join('support', 'chainvisor-command.js'))) return true;
  const imports = [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+\.js)'/g)].map((m) => path.join(path.dirname(file), m[1]));
  // Test files import only test support and sources; only the former can lead to the command.
  return imports.filter((imported) => imported.split(path.sep).includes('test') && existsSync(imported)).some((imported) => runsCommand(imported, seen));
}

const executable = process.env.CHAINVISOR_TEST_EXECUTABLE;
let files = roots.flatMap((folder) => collect(folder, []));
if (executable) {
  files = files.filter((file) => runsCommand(file));
  console.error(`run-tests: chainvisor is ${path.resolve(executable)}: the ${files.length} test files that run the command`);
}
if (files.length === 0) {
  console.error(`no test files under ${roots.join(', ')}: run 'npm run build' first`);
  process.exit(1);
}
// The run's temporary files (every test's homes, chains, downloads and backups) in memory, where the
// host has a tmpfs at /dev/shm with room to spare (4 GiB): chainvisor syncs what it writes to disk, and
// on a disk each of those syncs waits on the journal (the supervisor and backup tests: 63 -> 53 s, a
// third less system CPU). A folder made for the run (TMPDIR, unless set already), removed at its end.
const inMemory = { path: '/dev/shm', tmpfsMagic: 0x01021994, room: 4 * 1024 ** 3, prefix: 'chainvisor-tests-' };
/** Removes `folder` and what is in it, if it can: a run's end never fails on its cleaning. */
function removeQuietly(folder) {
  try {
    rmSync(folder, { recursive: true, force: true });
  } catch {
    // Busy (a mount a killed test left), or gone.
  }
}
if (process.env.TMPDIR === undefined) {
  try {
    const fs = statfsSync(inMemory.path);
    if (fs.type === inMemory.tmpfsMagic && fs.bavail * fs.bsize >= inMemory.room) {
      // The folders of runs that were killed (their runner's pid is in the name) hold memory until a reboot.
      for (const name of readdirSync(inMemory.path)) {
        const pid = new RegExp(`^${inMemory.prefix}(\\d+)-`).exec(name)?.[1];
        if (pid !== undefined && !isAlive(Number(pid))) removeQuietly(path.join(inMemory.path, name));
      }
      const tmp = mkdtempSync(path.join(inMemory.path, `${inMemory.prefix}${process.pid}-`));
      process.on('exit', () => removeQuietly(tmp));
      // A tmpfs mounted noexec (a hardened host) cannot run the tests' fake nodes and launchers.
      const probe = path.join(tmp, 'probe');
      writeFileSync(probe, '#!/bin/sh\n', { mode: 0o755 });
      accessSync(probe, constants.X_OK);
      rmSync(probe);
      process.env.TMPDIR = tmp;
    }
  } catch {
    // On disk, as the host's temporary folder is.
  }
}
/** Whether a process of this pid runs (or is another user's). */
function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}
/** A temporary folder for the whole run, named in `variable` (unless set already), removed at the run's end. */
function runFolder(variable, prefix) {
  if (process.env[variable] !== undefined) return;
  try {
    const folder = mkdtempSync(path.join(os.tmpdir(), prefix));
    process.env[variable] = folder;
    process.on('exit', () => removeQuietly(folder));
  } catch {
    // None: the caller's comment says what that costs.
  }
}
// Node's on-disk compile cache (Node 22.1+), inherited by every Node process of the run: the test files,
// the chainvisor command, the simulated node's binaries. Those start well over a thousand times in a
// run, and each start otherwise compiles the same few hundred modules again. A fresh folder for each
// run, removed at its end: the simulated node's launchers live in new temporary folders every run, so
// a kept cache would only grow (19 MB after one run). Made here first, so that a folder that cannot be
// made means no cache, never a stuck run (Node 22.23, given one under /proc, loops at full CPU).
runFolder('NODE_COMPILE_CACHE', 'chainvisor-test-compile-cache-'); // without it: the same run, only slower
// Test data that takes seconds to build and that several test files use alike (the compressed bombs of
// scripts/make-compressed-archives.ts): built once in the run, in a temporary folder removed at its end.
runFolder('CHAINVISOR_TEST_FIXTURE_CACHE', 'chainvisor-test-fixtures-'); // without it: each file builds its own
// The chainvisor command and the simulated node started from bundles of dist/ (scripts/test-bundles.mjs):
// the same compiled code in a few files, which starts in half the CPU or less. The command under
// CHAINVISOR_TEST_EXECUTABLE is that file still. CHAINVISOR_TEST_BUNDLE=off runs dist/ as it is.
// Read here only: the tests see a bundle's path, or no variable.
if (process.env.CHAINVISOR_TEST_BUNDLE === 'off') {
  delete process.env.CHAINVISOR_TEST_BUNDLE;
} else {
  const { buildTestBundles } = await import('./test-bundles.mjs');
  const bundles = await buildTestBundles(root).catch((error) => {
    console.error(`run-tests: could not bundle the command and the simulated node: ${error.message}`);
    console.error('run-tests: CHAINVISOR_TEST_BUNDLE=off runs dist/ as it is');
    process.exit(1);
  });
  process.env.CHAINVISOR_TEST_BUNDLE = bundles.chainvisor;
  process.env.SIMD_MAIN = bundles.simd;
}
/**
 * The files that took 30 s or more alone (wall time, on a loaded 2-core machine), slowest first: they
 * start first, and the rest follow in alphabetical order. Alphabetically the end-to-end files came in
 * the middle, and a long one was often the last to end, on one core while the other stood idle. A file
 * not named here (a new one) runs in its alphabetical place; a name no file has any more is ignored.
 */
const slowFirst = [
  'dist/test/e2e/rehearse.test.js',
  'dist/test/e2e/after-upgrade.test.js',
  'dist/test/e2e/manual-upgrade.test.js',
  'dist/test/download/staging/staging.test.js',
  'dist/test/e2e/twin-check.test.js',
  'dist/test/e2e/download-bombs.test.js',
  'dist/test/e2e/rehearse-auto.test.js',
  'dist/test/cli/exit-codes.test.js',
  'dist/test/guard/sign-guard-damaged.test.js',
  'dist/test/cli/check-plan-streams.test.js',
  'dist/test/download/staging/sources.test.js',
  'dist/test/cli/usage-errors.test.js',
  'dist/test/cli/network-errors.test.js',
  'dist/test/e2e/sim-upgrade.test.js',
  'dist/test/download/staging/rpc-only.test.js',
  'dist/test/home/backup/restore-damaged.test.js',
  'dist/test/supervisor/group-signal.test.js',
  'dist/test/cli/cosmovisor-parity.test.js',
  'dist/test/e2e/upgrade-sources.test.js',
];
const rank = (file) => {
  const at = slowFirst.indexOf(path.relative(root, path.resolve(file)).split(path.sep).join('/'));
  return at === -1 ? slowFirst.length : at;
};
files = files
  .map((file, i) => ({ file, i }))
  .sort((a, b) => rank(a.file) - rank(b.file) || a.i - b.i)
  .map(({ file }) => file);

const concurrencyFlag = flags.find((f) => /^--test-concurrency=\d+$/.test(f));
const concurrency = concurrencyFlag === undefined ? Math.max(4, os.availableParallelism() + 2) : Number(concurrencyFlag.split('=')[1]);
// Other flags than --test-concurrency go to `node --test` itself, which then runs the files in its own order.
const others = flags.filter((f) => f !== concurrencyFlag);
const tested = others.length === 0 ? runInOrder() : run(process.execPath, ['--test', `--test-concurrency=${concurrency}`, ...others, ...files], false);
const [tests, lintResult] = await Promise.all([tested, linted]);
if (lint) {
  const text = Buffer.concat(lintResult.output).toString();
  process.stdout.write(`\nlint (eslint, prettier --check): ${lintResult.code === 0 ? 'passed' : `FAILED (exit code ${lintResult.code})`}\n${text}`);
}
process.exit(tests.code !== 0 ? tests.code : lintResult.code);
