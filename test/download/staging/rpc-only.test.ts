/**
 * Staging and `prepare-upgrade` beside a node with gRPC turned off, its CometBFT RPC on a port named
 * only in the home's config/config.toml: chainvisor finds the RPC as the node does and reads the plan
 * there (issue 24, item 5), so the binary is still staged before the halt.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { access, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { readAddresses, upgradeInfoFor } from '@chainvisor/simd';
import { proposeUpgrade, waitFor, waitForProposal } from '@chainvisor/simd/testing';

import { type Chain, makeChain, runChainvisor, serveFiles } from '../../support/staging-chain.js';

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

test('gRPC off (--grpc.enable=false), RPC only in config.toml: the plan is read over the RPC and staged before the halt', async (t) => {
  const chain = await makeChain(t, { rpcOnly: true });
  const server = await serveFiles(t, chain.built.out);
  const run = runChainvisor(t, chain);
  const genesis = await run.nodeOf('genesis');
  assert.equal(genesis.grpc, '', 'the node serves no gRPC');
  const configured = /^laddr = "(.*)"$/m.exec(await readFile(path.join(chain.home, 'config', 'config.toml'), 'utf8'))?.[1];
  assert.equal(genesis.rpc, configured, 'the node listens where its config.toml says');
  const said = run.output();
  assert.match(
    said,
    /the chain is read from no gRPC \(off: flag --grpc\.enable\), else from the node's RPC at tcp:\/\/127\.0\.0\.1:\d+ \[config\/config\.toml \[rpc\] laddr\]/,
  );

  // 150 blocks of 100 ms: room for the proposal's command, its vote and the staging on a loaded machine.
  const height = (await run.height(genesis)) + 150;
  await proposeUpgrade(chain.built.versions.genesis!.bin, chain.home, { name: 'v2', height, info: upgradeInfoFor(chain.built.versions.v2!, server.url) });
  await waitFor(() => run.events('binary-staged').length > 0, `binary-staged\n${run.output()}`);
  assert.ok(await exists(path.join(chain.home, 'cosmovisor', 'upgrades', 'v2', 'bin', 'simd')));
  assert.ok((await run.height(genesis)) < height, 'staged before the halt height');
  const staged = server.bytes();

  const v2 = await run.nodeOf('v2', 90_000);
  await waitFor(async () => (await run.height(v2).catch(() => 0)) > height, 'v2 past the height');
  assert.equal(server.bytes(), staged, 'nothing downloaded at the halt');
  assert.doesNotMatch(run.output(), /no answer from/, 'never reported unreachable');
});

/** `simd start` with only the home's files to say where it listens; stopped at the end of the test. */
async function startFromFiles(t: TestContext, chain: Chain): Promise<{ rpc: string; stop(): Promise<void> }> {
  const proc = spawn(chain.built.versions.genesis!.bin, ['start', '--home', chain.home, '--block-time', '100ms'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  proc.stderr.setEncoding('utf8').on('data', (c: string) => (log += c));
  const exit = new Promise((resolve) => proc.on('exit', resolve));
  let exited = false;
  void exit.then(() => (exited = true));
  const stop = async () => {
    if (!exited) proc.kill('SIGTERM');
    await exit;
  };
  t.after(stop);
  const addresses = await waitFor(async () => {
    if (exited) throw new Error(`the node exited:\n${log}`);
    const found = await readAddresses(chain.home).catch(() => undefined);
    return found?.pid === proc.pid ? found : undefined;
  }, 'the node to listen');
  return { rpc: addresses.rpc, stop };
}

test('prepare-upgrade with gRPC off in app.toml: reads the plan over the RPC; neither answering is one error and exit 79', async (t) => {
  const chain = await makeChain(t, { rpcOnly: true });
  const server = await serveFiles(t, chain.built.out);
  const appToml = path.join(chain.home, 'config', 'app.toml');
  await writeFile(appToml, (await readFile(appToml, 'utf8')).replace(/^enable = true$/m, 'enable = false'));
  const node = await startFromFiles(t, chain);
  const bin = chain.built.versions.genesis!.bin;

  const none = await chain.chainvisor(['prepare-upgrade']);
  assert.equal(none.code, 0, none.stderr);
  assert.equal(none.stdout, `no upgrade is scheduled on chain (asked the node's RPC at ${node.rpc}); nothing to prepare`);

  const { id } = await proposeUpgrade(bin, chain.home, { name: 'v2', height: 100_000, info: upgradeInfoFor(chain.built.versions.v2!, server.url) });
  await waitForProposal(bin, chain.home, id, /PASSED/);
  const staged = await chain.chainvisor(['prepare-upgrade']);
  assert.equal(staged.code, 0, staged.stderr);
  assert.match(staged.stdout, new RegExp(`^upgrade "v2" is scheduled on chain at height 100000 \\(asked the node's RPC at ${node.rpc}\\)$`, 'm'));
  assert.match(staged.stdout, /upgrades\/v2\/bin\/simd downloaded, verified and installed/);

  await node.stop();
  const down = await chain.chainvisor(['prepare-upgrade']);
  assert.equal(down.code, 79, down.stderr);
  assert.equal(down.stderr.match(/could not read/g)?.length, 1, down.stderr);
  assert.match(down.stderr, new RegExp(`from the node's RPC at ${node.rpc} \\(gRPC is off: config/app\\.toml \\[grpc\\] enable\\)`));
});
