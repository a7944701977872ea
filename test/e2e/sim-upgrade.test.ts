/**
 * The end-to-end test the project exists for: the simulated genesis node under `chainvisor run`, a
 * governance proposal passes, the node halts at the height, chainvisor switches to v2 (installed
 * beforehand with `add-upgrade`, or downloaded from a local server named in the plan's Info), v2
 * applies the upgrade at that same height and keeps producing blocks. In both halt modes of the node.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readlink, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { buildVersions, type BuiltVersions, type NodeAddresses, readAddresses, upgradeInfoFor } from '@chainvisor/simd';
import { cli, cliJson, fastFlags, proposeUpgrade, waitFor } from '@chainvisor/simd/testing';

import { chainvisorCommand } from '../support/chainvisor-command.js';
import { serveFiles } from '../support/file-server.js';
import { stopRunAndNode } from '../support/leftover-node.js';

interface Scenario {
  haltMode: 'exit' | 'stay';
  /** How chainvisor gets the v2 binary. */
  v2: 'add-upgrade' | 'download';
}

async function walkUpgrade(t: TestContext, scenario: Scenario): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sim-e2e-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const built: BuiltVersions = await buildVersions({ out: path.join(dir, 'versions'), versions: ['genesis', 'v2'] });
  const genesis = built.versions.genesis?.bin as string;
  const v2 = built.versions.v2?.bin as string;
  const home = path.join(dir, 'home');
  const env = {
    DAEMON_HOME: home,
    DAEMON_NAME: 'simd',
    UNSAFE_SKIP_BACKUP: 'true',
    DAEMON_ALLOW_DOWNLOAD_BINARIES: scenario.v2 === 'download' ? 'true' : 'false',
    COSMOVISOR_COLOR_LOGS: 'false',
  };
  const chainvisorCli = (args: string[]) => cli(...chainvisorCommand(args), env);

  assert.equal((await cli(genesis, ['init', 'e2e', '--home', home, '--voting-period', '500ms', '--deposit-period', '500ms', '--auto-vote'])).code, 0);
  const init = await chainvisorCli(['init', genesis]);
  assert.equal(init.code, 0, init.stderr);
  let info = built.versions.v2?.info as string;
  if (scenario.v2 === 'add-upgrade') {
    const add = await chainvisorCli(['add-upgrade', 'v2', v2]);
    assert.equal(add.code, 0, add.stderr);
  } else {
    info = upgradeInfoFor(built.versions.v2!, (await serveFiles(t, built.out)).url);
  }

  const haltFlags = scenario.haltMode === 'stay' ? ['--halt-mode', 'stay'] : [];
  const run = spawn(...chainvisorCommand(['run', 'start', '--home', home, ...fastFlags, ...haltFlags]), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  run.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
  run.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
  const exit = new Promise<number | null>((resolve) => run.on('exit', (code) => resolve(code)));
  let exited = false;
  void exit.then(() => (exited = true));
  t.after(async () => {
    // After a failure: ask chainvisor to stop (it stops its node), then make sure neither survives.
    await stopRunAndNode(run, exit, () => exited, home);
    run.stdout.destroy();
    run.stderr.destroy();
  });

  const nodeOf = async (version: string): Promise<NodeAddresses> =>
    waitFor(async () => {
      if (exited) throw new Error(`chainvisor exited early:\n${output}`);
      const a = await readAddresses(home).catch(() => undefined);
      return a?.version === version ? a : undefined;
    }, `the ${version} node to listen\n${output}`);
  const heightOf = async (a: NodeAddresses) => {
    const r = await fetch(`${a.rpc.replace('tcp:', 'http:')}/status`);
    return Number(((await r.json()) as { result: { sync_info: { latest_block_height: string } } }).result.sync_info.latest_block_height);
  };

  const first = await nodeOf('genesis');
  await waitFor(async () => (await heightOf(first)) >= 2, 'genesis blocks');
  const height = (await heightOf(first)) + 150;
  const { id } = await proposeUpgrade(genesis, home, { name: 'v2', height, info });
  assert.equal(id, '1');

  // chainvisor switches binaries; v2 starts and applies the upgrade at the same height.
  const second = await nodeOf('v2');
  await waitFor(async () => (await heightOf(second).catch(() => 0)) >= height + 3, `v2 past height ${height + 3}\n${output}`);
  assert.match(output, new RegExp(`UPGRADE "v2" NEEDED at height: ${height}`));
  assert.match(output, new RegExp(`applying upgrade "v2" at height: ${height}`));
  assert.equal(await readlink(path.join(home, 'cosmovisor', 'current')), path.join('upgrades', 'v2'));

  const applied = await cli(v2, ['query', 'upgrade', 'applied', 'v2', '--home', home]);
  assert.equal(applied.code, 0, applied.stderr);
  assert.equal(JSON.parse(applied.stdout).header.height, String(height));
  const versions = await cliJson<{ module_versions: Array<{ name: string; version: string }> }>(v2, ['query', 'upgrade', 'module_versions', '--home', home]);
  const map = Object.fromEntries(versions.module_versions.map((m) => [m.name, m.version]));
  assert.deepEqual([map.bank, map.newmod, map.upgrade], ['5', '1', '2']);
  const plan = await cli(v2, ['query', 'upgrade', 'plan', '--home', home]);
  assert.match(plan.stderr, /no upgrade scheduled/);

  run.kill('SIGTERM');
  assert.equal(await exit, 0, output);
}

test('chainvisor switches the halted node to the installed v2 (node exits at the halt)', async (t) => {
  await walkUpgrade(t, { haltMode: 'exit', v2: 'add-upgrade' });
});

test('chainvisor switches the halted node to the installed v2 (node stays up at the halt)', async (t) => {
  await walkUpgrade(t, { haltMode: 'stay', v2: 'add-upgrade' });
});

test('chainvisor downloads v2 from the plan Info (local server) and switches to it', async (t) => {
  await walkUpgrade(t, { haltMode: 'exit', v2: 'download' });
});
