/**
 * A node whose addresses are given only as start flags (`--grpc.address`, `--rpc.laddr`), its
 * app.toml and config.toml naming ports where nothing listens: `run` publishes where it listens, and
 * `prepare-upgrade`, `add-upgrade --upgrade-height` and `config` find it there while it runs; once it
 * has stopped, or when the record names a process that is gone, they read the files again.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

import { waitFor } from '@chainvisor/simd/testing';

import { chainvisorSim, heightOf } from '../support/chainvisor-sim.js';
import { unusedPort } from '../support/ports.js';

/** Points `key` of the TOML `file` at `value`, in its section (simd init writes every key it reads). */
async function setToml(file: string, section: string, key: string, value: string): Promise<void> {
  const text = await fs.readFile(file, 'utf8');
  const start = text.indexOf(`[${section}]`);
  assert.ok(start >= 0, `${file} has no [${section}]`);
  const rest = text.slice(start).replace(new RegExp(`^${key} = .*$`, 'm'), `${key} = "${value}"`);
  await fs.writeFile(file, text.slice(0, start) + rest);
}

test('prepare-upgrade and add-upgrade --upgrade-height find a node whose addresses are flags only, where run published them', async (t) => {
  // No DAEMON_GRPC_ADDRESS: the node's own word is all there is.
  const sim = await chainvisorSim(t, ['genesis', 'v2'], { DAEMON_GRPC_ADDRESS: '' });
  const [rpcPort, grpcAddress] = [await unusedPort(), sim.nodeFlags[sim.nodeFlags.indexOf('--grpc.address') + 1] as string];
  const [closedRpc, closedGrpc] = [await unusedPort(), await unusedPort()];
  await setToml(path.join(sim.home, 'config', 'config.toml'), 'rpc', 'laddr', `tcp://127.0.0.1:${closedRpc}`);
  await setToml(path.join(sim.home, 'config', 'app.toml'), 'grpc', 'address', `127.0.0.1:${closedGrpc}`);
  const fromFiles = await sim.cv(['config']);
  assert.match(fromFiles.stdout, new RegExp(`^grpc +127\\.0\\.0\\.1:${closedGrpc} \\[config/app\\.toml \\[grpc\\] address\\]$`, 'm'));

  const run = sim.run(['--rpc.laddr', `tcp://127.0.0.1:${rpcPort}`]);
  const node = await run.nodeOf('genesis');
  assert.equal(node.rpc, `tcp://127.0.0.1:${rpcPort}`);
  const record = path.join(sim.home, 'cosmovisor', '.chainvisor', 'node.json');
  await waitFor(async () => JSON.parse(await fs.readFile(record, 'utf8').catch(() => '{}')).pid === node.pid, 'the node record with its pid');

  const config = await sim.cv(['config']);
  assert.match(config.stdout, new RegExp(`^grpc +${grpcAddress} \\[the running node's flag --grpc\\.address\\]$`, 'm'));
  assert.match(config.stdout, new RegExp(`^rpc +tcp://127\\.0\\.0\\.1:${rpcPort} \\[the running node's flag --rpc\\.laddr\\]$`, 'm'));
  const prepared = await sim.cv(['prepare-upgrade']);
  assert.equal(prepared.code, 0, prepared.stderr);
  assert.match(prepared.stdout, /no upgrade is scheduled on chain \(asked .*\); nothing to prepare/);

  await waitFor(async () => (await heightOf(node).catch(() => 0)) >= 3, 'a few blocks');
  // Far enough that the 50 ms blocks never reach it while the test runs, however slow the machine.
  const height = (await heightOf(node)) + 1_000_000;
  // The home signs with a local key: the restart for the halt height needs the operator's go-ahead.
  const queued = await sim.cv(['add-upgrade', 'v2', sim.bin('v2'), '--upgrade-height', String(height), '--restart-now']);
  assert.equal(queued.code, 0, queued.stderr);
  assert.doesNotMatch(queued.stderr, /not checked against the chain/);
  // The node restarts to take the halt height (its record published again); stopped once it makes blocks.
  const restarted = await waitFor(
    async () => {
      const now = await run.nodeOf('genesis');
      return now.pid !== node.pid && (await heightOf(now).catch(() => 0)) > 0 ? now : undefined;
    },
    `the node restarted\n${run.output().slice(-3000)}`,
  );
  assert.ok(restarted.pid !== node.pid);
  assert.match(
    run.output(),
    new RegExp(`"haltHeight":${height}|--halt-height=${height}|"--halt-height","${height}"`),
    'the node restarted with the halt height',
  );
  await waitFor(async () => JSON.parse(await fs.readFile(record, 'utf8').catch(() => '{}')).pid === restarted.pid, 'the new record');

  assert.equal(await run.stop(), 0, run.output());
  await assert.rejects(fs.stat(record), { code: 'ENOENT' }, 'the record goes with the node');
  const stopped = await sim.cv(['prepare-upgrade']);
  assert.equal(stopped.code, 79, 'the files name ports where nothing listens');

  // A record left by a chainvisor killed with its node: the pid is gone, the files are read.
  const gone = spawn('true');
  await once(gone, 'exit');
  const left = { runId: 'x', supervisorPid: gone.pid, binary: sim.bin('genesis'), pid: gone.pid, startToken: '1', startedAt: new Date().toISOString() };
  const addresses = { rpc: { address: node.rpc, source: 'flag --rpc.laddr' }, grpc: { address: grpcAddress, source: 'flag --grpc.address', enabled: true } };
  await fs.writeFile(record, JSON.stringify({ ...left, addresses }));
  const stale = await sim.cv(['config']);
  assert.match(stale.stdout, new RegExp(`^grpc +127\\.0\\.0\\.1:${closedGrpc} \\[config/app\\.toml \\[grpc\\] address\\]$`, 'm'));
});
