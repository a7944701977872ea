/**
 * Where the simulated node listens, as an SDK node: `init` writes `[rpc] laddr` into config.toml and
 * `[grpc]`/`[api]` `enable`/`address` into app.toml with the SDK's defaults (keeping what app.toml
 * already holds); `start` reads them; its flags override them; `--grpc.enable=false` binds no gRPC.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { parse as parseToml } from 'smol-toml';

import { type NodeAddresses, readAddresses } from '../../src/index.js';
import { cli, simFixture, stopWithFixture, waitFor } from '../support/node-harness.js';

/** A TOML file as plain objects (the parser's tables have no prototype). */
const readToml = async (file: string): Promise<unknown> => JSON.parse(JSON.stringify(parseToml(await readFile(file, 'utf8'))));

/** A loopback port that was free a moment ago. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/** `start --home <home> <flags>` (no fast flags: the files decide); its addresses once it listens. */
async function start(t: TestContext, bin: string, home: string, flags: string[]): Promise<NodeAddresses> {
  const proc = spawn(bin, ['start', '--home', home, '--block-time', '100ms', ...flags], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  proc.stderr.setEncoding('utf8').on('data', (c: string) => (log += c));
  const exit = new Promise((resolve) => proc.on('exit', resolve));
  stopWithFixture(proc, home, exit);
  let exited = false;
  void exit.then(() => (exited = true));
  t.after(async () => {
    if (!exited) proc.kill('SIGTERM');
    await exit;
  });
  return waitFor(async () => {
    if (exited) throw new Error(`the node exited:\n${log}`);
    const found = await readAddresses(home).catch(() => undefined);
    return found?.pid === proc.pid ? found : undefined;
  }, 'the node to listen');
}

test('init writes the listen keys with the SDK defaults, and keeps what app.toml already says', async (t) => {
  const sim = await simFixture(t, { versions: ['genesis'] });
  const home = await sim.initHome();
  assert.deepEqual(await readToml(path.join(home, 'config', 'config.toml')), { moniker: 'test', rpc: { laddr: 'tcp://127.0.0.1:26657' } });
  assert.deepEqual(await readToml(path.join(home, 'config', 'app.toml')), {
    grpc: { enable: true, address: 'localhost:9090' },
    api: { enable: false, address: 'tcp://localhost:1317' },
  });

  const app = path.join(home, 'config', 'app.toml');
  await writeFile(app, 'pruning = "nothing"\n[grpc]\naddress = "127.0.0.1:19090"\n');
  const again = await cli(sim.bin('genesis'), ['init', 'test', '--home', home, '--overwrite']);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(await readToml(app), {
    pruning: 'nothing',
    grpc: { enable: true, address: '127.0.0.1:19090' },
    api: { enable: false, address: 'tcp://localhost:1317' },
  });
});

test('start listens where config.toml and app.toml say; flags override them; --grpc.enable=false binds no gRPC', async (t) => {
  const sim = await simFixture(t, { versions: ['genesis'] });
  const home = await sim.initHome();
  const [rpc, grpc, api] = [await freePort(), await freePort(), await freePort()];
  const configFile = path.join(home, 'config', 'config.toml');
  await writeFile(configFile, (await readFile(configFile, 'utf8')).replace('tcp://127.0.0.1:26657', `tcp://127.0.0.1:${rpc}`));
  await writeFile(
    path.join(home, 'config', 'app.toml'),
    `[grpc]\nenable = true\naddress = "127.0.0.1:${grpc}"\n\n[api]\nenable = true\naddress = "tcp://127.0.0.1:${api}"\n`,
  );

  const fromFiles = await start(t, sim.bin('genesis'), home, []);
  assert.deepEqual(
    { rpc: fromFiles.rpc, grpc: fromFiles.grpc, api: fromFiles.api },
    { rpc: `tcp://127.0.0.1:${rpc}`, grpc: `127.0.0.1:${grpc}`, api: `tcp://127.0.0.1:${api}` },
  );
  assert.equal((await fetch(`http://127.0.0.1:${rpc}/status`)).status, 200);
  process.kill(fromFiles.pid, 'SIGTERM');
  await waitFor(async () => (await readAddresses(home)) === undefined, 'the node to stop');

  const fromFlags = await start(t, sim.bin('genesis'), home, ['--rpc.laddr', 'tcp://127.0.0.1:0', '--grpc.enable=false', '--api.enable=false']);
  assert.notEqual(fromFlags.rpc, `tcp://127.0.0.1:${rpc}`, '--rpc.laddr wins over config.toml');
  assert.equal(fromFlags.grpc, '');
  assert.equal(fromFlags.api, '');
  assert.equal(await listening(grpc), false, 'no gRPC listener');
  assert.equal(await listening(api), false, 'no REST listener');
  assert.equal(await listening(Number(new URL(fromFlags.rpc.replace('tcp:', 'http:')).port)), true);
});
