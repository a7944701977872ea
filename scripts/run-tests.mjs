#!/usr/bin/env node
// Runs every compiled test file (dist/test/**/*.test.js and the simulated node's
// packages/simd/dist/test/**/*.test.js) with node's test runner, on whichever node
// runs this script. Node 22+ no longer accepts a folder as `node --test dist/test/`, and glob
// support differs between versions, so the file list is built here: the same files on 20, 22, 24, 26.
// Arguments are passed to `node --test` before the files (for example --test-concurrency=1), and
// folders or files given after `--` narrow the run: `node scripts/run-tests.mjs -- dist/test/cli`.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
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

const files = roots.flatMap((root) => collect(root, []));
if (files.length === 0) {
  console.error(`no test files under ${roots.join(', ')}: run 'npm run build' first`);
  process.exit(1);
}
const hasConcurrency = flags.some((f) => f.startsWith('--test-concurrency'));
const child = spawn(process.execPath, ['--test', ...(hasConcurrency ? [] : ['--test-concurrency=2']), ...flags, ...files], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
