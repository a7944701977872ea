/**
 * What `chainvisor` loads before it answers. The test suite and operators' scripts start it thousands of
 * times: `--version` and `help` load no command, and a command loads its own module only. On a Node.js
 * too old, bin/chainvisor.js says so before it loads anything that could fail first.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { chainvisorBin, chainvisorExecutable } from '../support/chainvisor-command.js';

const traceHook = fileURLToPath(new URL('../support/module-trace.js', import.meta.url));
const skip = chainvisorExecutable && 'bin/chainvisor.js only: the executable carries its own Node.js and one bundle';

/** The files of dist/src/ that `chainvisor <args>` loads, relative to it (`cli/index.js`, …). */
async function loadedModules(t: { after(fn: () => Promise<void>): void }, args: string[]): Promise<string[]> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cv-start-up-'));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  const trace = path.join(dir, 'trace');
  const result = spawnSync(process.execPath, ['--import', traceHook, chainvisorBin, ...args], {
    env: { ...process.env, CHAINVISOR_TEST_MODULE_TRACE: trace },
    encoding: 'utf8',
  });
  // With no command at all, the help is a usage error (64), loaded as lightly.
  assert.equal(result.status, args.length === 0 ? 64 : 0, result.stderr);
  const urls = (await fs.readFile(trace, 'utf8')).split('\n');
  return urls.flatMap((url) => /\/dist\/src\/(.*)$/.exec(url)?.[1] ?? []);
}

/** Modules of commands among `loaded` (the table of commands itself is not one). */
const commandModules = (loaded: string[]) => loaded.filter((file) => file.startsWith('cli/commands/') && !/\/(index|registry)\.js$/.test(file));

for (const args of [['--version'], ['help'], []]) {
  test(`'${['chainvisor', ...args].join(' ')}' loads no command, and neither settings, alerts nor the HTTP client`, { skip }, async (t) => {
    const loaded = await loadedModules(t, args);
    assert.ok(loaded.includes('cli/index.js'), loaded.join('\n'));
    assert.deepEqual(commandModules(loaded), []);
    assert.deepEqual(
      loaded.filter((file) => /^(config|alerts|shared\/net|home|observe)\//.test(file)),
      [],
    );
  });
}

for (const args of [
  ['help', 'status'],
  ['status', '--help'],
  ['config', '--help'],
]) {
  test(`'${['chainvisor', ...args].join(' ')}' loads that command's module only`, { skip }, async (t) => {
    const name = args[0] === 'help' ? args[1] : args[0];
    assert.deepEqual(commandModules(await loadedModules(t, args)), [`cli/commands/${name}.js`]);
  });
}

test('on a Node.js too old, bin/chainvisor.js says so even where the command line cannot be loaded', { skip }, async (t) => {
  // bin/ alone, without the compiled code beside it; Node.js reports an older version than it is.
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cv-old-node-'));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  await fs.mkdir(path.join(dir, 'bin'));
  for (const file of ['chainvisor.js', 'node-version.js']) await fs.copyFile(path.join(path.dirname(chainvisorBin), file), path.join(dir, 'bin', file));
  const oldNode = path.join(dir, 'old-node.mjs');
  await fs.writeFile(oldNode, "Object.defineProperty(process.versions, 'node', { value: '20.19.0' });\n");
  const result = spawnSync(process.execPath, ['--import', oldNode, path.join(dir, 'bin', 'chainvisor.js'), '--version'], { encoding: 'utf8' });
  assert.equal(result.stdout, '');
  assert.equal(
    result.stderr,
    'chainvisor: error: Node.js 20.19.0 is too old: chainvisor needs Node.js 22.19 or later\n' +
      'chainvisor: hint: install the release executable (it needs no Node.js), or run chainvisor with Node.js 22.19 or later\n' +
      'chainvisor: code: CHAINVISOR_NODE_TOO_OLD\n',
  );
  assert.equal(result.status, 1);
});
