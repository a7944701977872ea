/**
 * A slow optional source at the height while staging is still asking it (issue #44): the simulated
 * chain under `chainvisor run` schedules v2 with `plan,registry`; the registry accepts and never
 * answers, so the staging attempt waits on it under the download policy (minutes). When the node
 * halts, the registry has 5 seconds more; then the plan's own binary is staged and switched to, and
 * the log names the registry as late.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { upgradeInfoFor } from '@chainvisor/simd';
import { proposeUpgrade, waitFor } from '@chainvisor/simd/testing';

import { startFaultServer } from '../../support/fault-server.js';
import { makeChain, runChainvisor, serveFiles } from '../../support/staging-chain.js';
import { registryDocument } from '../../support/upgrade-sources.js';

test('a registry that never answers holds a staging at the halt for 5 s, not the download policy: the plan binary is switched to', async (t) => {
  const chain = await makeChain(t);
  const files = await serveFiles(t, chain.built.out);
  const registry = await startFaultServer();
  t.after(() => registry.close());
  registry.route('/registry.json', { body: registryDocument([]), always: { kind: 'no-answer' } });
  const run = runChainvisor(t, chain, {
    CHAINVISOR_UPGRADE_SOURCES: 'plan,registry',
    CHAINVISOR_REGISTRY_URL: registry.url('/registry.json'),
    CHAINVISOR_DOWNLOAD_RETRIES: '5',
  });
  const genesis = await run.nodeOf('genesis');
  // 150 blocks of 100 ms: room for the proposal's command, its vote and the staging on a loaded machine.
  const height = (await run.height(genesis)) + 150;
  await proposeUpgrade(chain.built.versions.genesis!.bin, chain.home, { name: 'v2', height, info: upgradeInfoFor(chain.built.versions.v2!, files.url) });

  await waitFor(() => registry.requestsTo('/registry.json').length > 0, 'staging asks the registry');
  await waitFor(() => run.events('upgrade-detected').length > 0, `the halt\n${run.output()}`, 60_000);
  const halted = Date.now();
  assert.equal(run.events('binary-staged').length, 0, 'not staged before the halt: the registry never answered');
  await run.nodeOf('v2');
  assert.ok(Date.now() - halted < 15_000, `v2 started ${Date.now() - halted} ms after the halt, over 15 s`);
  assert.match(
    run.output(),
    /upgrade source registry \(http:\/\/127\.0\.0\.1:\d+\/registry\.json\) is not used for upgrade \\"v2\\": late: no answer within 5 s/,
  );
  assert.match(run.output(), /the binary of upgrade \\"v2\\" comes from plan/);
});
