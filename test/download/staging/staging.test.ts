/**
 * Staging before the halt, on the simulated chain under `chainvisor run`: the binary of a plan scheduled
 * by governance is downloaded while the old node runs (and counted in chainvisor_download_bytes_total),
 * so nothing is downloaded at the halt; a cancelled
 * plan keeps it, marked not planned; a moved height keeps it; a dead link warns loudly before the height; a restart of
 * chainvisor mid-staging stages again; `prepare-upgrade` stages on its own.
 */
import assert from 'node:assert/strict';
import { access, readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

import { upgradeInfoFor } from '@chainvisor/simd';
import { proposeCancel, proposeUpgrade, startNode, waitFor, waitForProposal } from '@chainvisor/simd/testing';

import { endpointOf, sample } from '../../support/observe-kit.js';
import { makeChain, runChainvisor, serveFiles } from '../../support/staging-chain.js';

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

test('a scheduled plan is staged while the old node runs, its bytes counted; the halt downloads nothing and switches', async (t) => {
  const chain = await makeChain(t);
  const server = await serveFiles(t, chain.built.out);
  const info = upgradeInfoFor(chain.built.versions.v2!, server.url);
  const run = runChainvisor(t, chain, { CHAINVISOR_HTTP_ADDRESS: '127.0.0.1:0' });
  const genesis = await run.nodeOf('genesis');
  // 150 blocks of 100 ms: room for the proposal's command, its vote and the staging on a loaded machine.
  const height = (await run.height(genesis)) + 150;
  await proposeUpgrade(chain.built.versions.genesis!.bin, chain.home, { name: 'v2', height, info });

  const binary = path.join(chain.home, 'cosmovisor', 'upgrades', 'v2', 'bin', 'simd');
  await waitFor(() => run.events('binary-staged').length > 0, `binary-staged\n${run.output()}`);
  assert.ok(await exists(binary));
  assert.ok((await run.height(genesis)) < height, 'staged before the halt height');
  assert.equal(run.events('upgrade-scheduled')[0]?.upgrade, 'v2');
  const stagedBytes = server.bytes();
  assert.ok(stagedBytes > 0);
  // The download the board's panel and status's activity show: the staging's, days before the halt.
  const metrics = await (await fetch(`${await endpointOf(chain)}/metrics`)).text();
  assert.equal(sample(metrics, 'chainvisor_download_bytes_total'), stagedBytes);

  const v2 = await run.nodeOf('v2', 90_000);
  await waitFor(async () => (await run.height(v2).catch(() => 0)) > height, 'v2 past the height');
  assert.equal(server.bytes(), stagedBytes, 'zero bytes downloaded at the halt');
  assert.equal(await readlink(path.join(chain.home, 'cosmovisor', 'current')), path.join('upgrades', 'v2'));
  assert.equal(run.events('upgrade-cancelled').length, 0, 'an applied plan is not reported as cancelled');
});

test('a plan cancelled on chain: its staged binary stays, marked not planned, and upgrade-cancelled is logged', async (t) => {
  const chain = await makeChain(t);
  const server = await serveFiles(t, chain.built.out);
  const run = runChainvisor(t, chain);
  const genesis = await run.nodeOf('genesis');
  const bin = chain.built.versions.genesis!.bin;
  const height = (await run.height(genesis)) + 400;
  await proposeUpgrade(bin, chain.home, { name: 'v2', height, info: upgradeInfoFor(chain.built.versions.v2!, server.url) });
  await waitFor(() => run.events('binary-staged').length > 0, 'binary-staged');

  await proposeCancel(bin, chain.home);
  await waitFor(() => run.events('upgrade-cancelled').length > 0, `upgrade-cancelled\n${run.output()}`);
  await waitFor(() => /marked not planned/.test(run.output()), `the staged binary marked not planned\n${run.output()}`);
  assert.ok(await exists(path.join(chain.home, 'cosmovisor', 'upgrades', 'v2', 'bin', 'simd')), 'still on disk');
  const records = JSON.parse(await readFile(path.join(chain.home, 'cosmovisor', '.chainvisor', 'staged.json'), 'utf8')) as Record<
    string,
    { cancelledAt?: string }
  >;
  assert.ok(records['upgrades/v2']?.cancelledAt, JSON.stringify(records));
  const entries = await readdir(path.join(chain.home, 'cosmovisor', 'upgrades'));
  assert.ok(!entries.some((e) => e.startsWith('v2.replaced-')), `nothing moved aside: ${entries.join(', ')}`);
  assert.equal(await readlink(path.join(chain.home, 'cosmovisor', 'current')), 'genesis');
});

test('a plan whose height changes keeps its staged binary (same Info: nothing downloaded again)', async (t) => {
  const chain = await makeChain(t);
  const server = await serveFiles(t, chain.built.out);
  const run = runChainvisor(t, chain);
  const genesis = await run.nodeOf('genesis');
  const bin = chain.built.versions.genesis!.bin;
  const info = upgradeInfoFor(chain.built.versions.v2!, server.url);
  const start = await run.height(genesis);
  await proposeUpgrade(bin, chain.home, { name: 'v2', height: start + 400, info });
  await waitFor(() => run.events('binary-staged').length > 0, 'binary-staged');
  const bytes = server.bytes();
  const { id } = await proposeUpgrade(bin, chain.home, { name: 'v2', height: start + 500, info });
  await waitForProposal(bin, chain.home, id, /PASSED/);
  await waitFor(() => run.events('upgrade-rescheduled').some((e) => e.height === start + 500 && e.from === start + 400), `height change seen\n${run.output()}`);
  assert.equal(server.bytes(), bytes, 'not downloaded again');
  assert.ok(await exists(path.join(chain.home, 'cosmovisor', 'upgrades', 'v2', 'bin', 'simd')));
  assert.equal(run.events('upgrade-cancelled').length, 0);
});

test('a dead link: staging-failed, then a loud warning blocks before the height, while the node runs on', async (t) => {
  const chain = await makeChain(t);
  const server = await serveFiles(t, chain.built.out);
  server.mode.status = 404;
  const run = runChainvisor(t, chain, { CHAINVISOR_STAGE_WARN_BLOCKS: '1000' });
  const genesis = await run.nodeOf('genesis');
  const height = (await run.height(genesis)) + 300;
  await proposeUpgrade(chain.built.versions.genesis!.bin, chain.home, { name: 'v2', height, info: upgradeInfoFor(chain.built.versions.v2!, server.url) });
  await waitFor(() => run.events('staging-failed').some((e) => /NOT staged/.test(String(e.msg))), `loud warning\n${run.output()}`);
  const warning = run.events('staging-failed').find((e) => /NOT staged/.test(String(e.msg)))!;
  assert.equal(warning.level, 50, 'logged as an error');
  assert.match(String(warning.msg), /staging keeps failing .*404/);
  assert.ok((await run.height(genesis)) < height, 'warned before the height');
  assert.ok(!(await exists(path.join(chain.home, 'cosmovisor', 'upgrades', 'v2'))), 'nothing half-installed');
});

test('chainvisor stopped mid-staging stages again when it starts again', async (t) => {
  const chain = await makeChain(t);
  const server = await serveFiles(t, chain.built.out);
  server.mode.bytesPerSecond = 32; // a very slow mirror: the first run stops before the download ends
  const info = upgradeInfoFor(chain.built.versions.v2!, server.url);
  const first = runChainvisor(t, chain);
  const genesis = await first.nodeOf('genesis');
  const height = (await first.height(genesis)) + 600;
  await proposeUpgrade(chain.built.versions.genesis!.bin, chain.home, { name: 'v2', height, info });
  await waitFor(() => server.bytes() > 0, 'the download to start');
  await first.stop();
  assert.ok(!(await exists(path.join(chain.home, 'cosmovisor', 'upgrades', 'v2'))), 'nothing half-installed');

  server.mode.bytesPerSecond = 0;
  const second = runChainvisor(t, chain);
  await waitFor(() => second.events('binary-staged').length > 0, `staged after the restart\n${second.output()}`);
  assert.ok(await exists(path.join(chain.home, 'cosmovisor', 'upgrades', 'v2', 'bin', 'simd')));
});

test('prepare-upgrade, with no supervisor: stages the scheduled plan; says so when there is none; 79 when the node is down', async (t) => {
  const chain = await makeChain(t);
  const server = await serveFiles(t, chain.built.out);
  const bin = chain.built.versions.genesis!.bin;
  const node = await startNode(t, bin, chain.home, ['--grpc.address', chain.grpc]);

  const none = await chain.chainvisor(['prepare-upgrade']);
  assert.equal(none.code, 0, none.stderr);
  assert.match(none.stdout, /no upgrade is scheduled on chain/);

  const { id } = await proposeUpgrade(bin, chain.home, {
    name: 'v2',
    height: (await node.height()) + 500,
    info: upgradeInfoFor(chain.built.versions.v2!, server.url),
  });
  await waitForProposal(bin, chain.home, id, /PASSED/);
  const r = await chain.chainvisor(['prepare-upgrade']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /upgrade "v2" at height \d+: .*upgrades\/v2\/bin\/simd downloaded, verified and installed/);
  assert.ok(await exists(path.join(chain.home, 'cosmovisor', 'upgrades', 'v2', 'bin', 'simd')));
  const again = await chain.chainvisor(['prepare-upgrade']);
  assert.match(again.stdout, /was already staged/);

  await node.stop();
  const down = await chain.chainvisor(['prepare-upgrade']);
  assert.equal(down.code, 79);
  assert.match(down.stderr, /could not read the scheduled upgrade plan from the node's gRPC at 127\.0\.0\.1:\d+ \(.*\) nor from the node's RPC at tcp:\/\//);
});
