#!/usr/bin/env node
// Runs every compiled test file (dist/test/**/*.test.js and the simulated node's
// packages/simd/dist/test/**/*.test.js) with node's test runner, on whichever node
// runs this script. Node 22+ no longer accepts a folder as `node --test dist/test/`, and glob
// support differs between versions, so the file list is built here: the same files on 22, 24, 26.
// Arguments are passed to `node --test` before the files (for example --test-concurrency=1), and
// folders or files given after `--` narrow the run: `node scripts/run-tests.mjs -- dist/test/cli`.
// With CHAINVISOR_TEST_EXECUTABLE=<file> (the release executable), the tests run that file as the
// `chainvisor` command instead of bin/chainvisor.js, and only the tests that run the command are run:
// those that import test/support/chainvisor-command.ts, directly or through other test files.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const argv = process.argv.slice(2);
const split = argv.indexOf('--');
const flags = split === -1 ? argv : argv.slice(0, split);
const roots = split === -1 ? ['dist/test', 'packages/simd/dist/test'] : argv.slice(split + 1);

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
let files = roots.flatMap((root) => collect(root, []));
if (executable) {
  files = files.filter((file) => runsCommand(file));
  console.error(`run-tests: chainvisor is ${path.resolve(executable)}: the ${files.length} test files that run the command`);
}
if (files.length === 0) {
  console.error(`no test files under ${roots.join(', ')}: run 'npm run build' first`);
  process.exit(1);
}
const hasConcurrency = flags.some((f) => f.startsWith('--test-concurrency'));
const child = spawn(process.execPath, ['--test', ...(hasConcurrency ? [] : ['--test-concurrency=2']), ...flags, ...files], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
