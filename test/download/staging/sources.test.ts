/**
 * A disagreement found while staging, days ahead and not at the height (issue #34): the simulated chain
 * under `chainvisor run` schedules v2; the plan's Info and the operator's registry give different
 * checksums for this host's binary. Nothing is installed, `checksum-disagreement` is logged and sent to
 * the webhook with each source's value, and at the height the upgrade fails with exit 79. Then the
 * registry agreeing, a binary is staged and `binary-staged` names its source.
 */
import assert from 'node:assert/strict';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

import { upgradeInfoFor } from '@chainvisor/simd';
import { proposeUpgrade, waitFor } from '@chainvisor/simd/testing';

import { hostPlatform } from '../../../src/download/index.js';
import { startFaultServer } from '../../support/fault-server.js';
import { makeChain, runChainvisor, serveFiles } from '../../support/staging-chain.js';
import { registryDocument } from '../../support/upgrade-sources.js';
import { startWebhookReceiver } from '../../support/webhook-receiver.js';

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

test('sources that disagree: found while staging (event, webhook), nothing installed, exit 79 at the height', async (t) => {
  const chain = await makeChain(t);
  const files = await serveFiles(t, chain.built.out);
  const registry = await startFaultServer();
  t.after(() => registry.close());
  const hook = await startWebhookReceiver();
  t.after(() => hook.close());
  const v2 = chain.built.versions.v2!;
  const info = upgradeInfoFor(v2, files.url);
  const planUrl = (JSON.parse(info) as { binaries: Record<string, string> }).binaries[hostPlatform()] as string;
  // The registry names the same file with the checksum of another build: a wrong checksum in one source.
  const wrong = planUrl.replace(/checksum=sha256:[0-9a-f]{64}/, `checksum=sha256:${chain.built.versions.genesis!.sha256.tarGz}`);
  registry.route('/registry.json', { body: registryDocument([{ name: 'v2', binaries: { [hostPlatform()]: wrong } }]) });
  const run = runChainvisor(t, chain, {
    CHAINVISOR_UPGRADE_SOURCES: 'plan,registry',
    CHAINVISOR_REGISTRY_URL: registry.url('/registry.json'),
    CHAINVISOR_WEBHOOK_URL: hook.url,
    CHAINVISOR_STAGE_WARN_BLOCKS: '5',
  });
  const genesis = await run.nodeOf('genesis');
  const height = (await run.height(genesis)) + 150;
  await proposeUpgrade(chain.built.versions.genesis!.bin, chain.home, { name: 'v2', height, info });

  await waitFor(() => run.events('checksum-disagreement').length > 0, `checksum-disagreement\n${run.output()}`);
  const logged = run.events('checksum-disagreement')[0]!;
  assert.equal(logged.level, 50, 'logged as an error');
  assert.match(String(logged.msg), /plan gives sha256:[0-9a-f]{64}; registry gives sha256:[0-9a-f]{64}; nothing is installed from either/);
  assert.ok((await run.height(genesis)) < height, 'found before the height');
  await waitFor(
    () => hook.received.some((r) => r.body.event === 'checksum-disagreement'),
    `webhook\n${JSON.stringify(hook.received.map((r) => r.body.event))}`,
  );
  const sent = hook.received.find((r) => r.body.event === 'checksum-disagreement')!.body;
  assert.match(String(sent.text), /plan gives .*registry gives/);
  assert.equal(files.bytes(), 0, 'nothing downloaded');
  assert.ok(!(await exists(path.join(chain.home, 'cosmovisor', 'upgrades', 'v2'))), 'nothing installed');
  assert.equal(run.events('binary-staged').length, 0);

  assert.equal(await run.exit, 79, `exit 79 at the height\n${run.output()}`);
  assert.match(run.output(), /CHAINVISOR_CHECKSUM_DISAGREEMENT/);
  assert.ok(!(await exists(path.join(chain.home, 'cosmovisor', 'upgrades', 'v2', 'bin', 'simd'))), 'nothing installed at the height either');
});

test('sources that agree: the binary is staged and binary-staged names the source it came from', async (t) => {
  const chain = await makeChain(t);
  const files = await serveFiles(t, chain.built.out);
  const registry = await startFaultServer();
  t.after(() => registry.close());
  const info = upgradeInfoFor(chain.built.versions.v2!, files.url);
  const planUrl = (JSON.parse(info) as { binaries: Record<string, string> }).binaries[hostPlatform()] as string;
  registry.route('/registry.json', { body: registryDocument([{ name: 'v2', binaries: { [hostPlatform()]: planUrl } }]) });
  const run = runChainvisor(t, chain, {
    CHAINVISOR_UPGRADE_SOURCES: 'registry,plan',
    CHAINVISOR_REGISTRY_URL: registry.url('/registry.json'),
    CHAINVISOR_CHECKSUM_QUORUM: '2',
  });
  const genesis = await run.nodeOf('genesis');
  await proposeUpgrade(chain.built.versions.genesis!.bin, chain.home, { name: 'v2', height: (await run.height(genesis)) + 400, info });
  await waitFor(() => run.events('binary-staged').length > 0, `binary-staged\n${run.output()}`);
  const staged = run.events('binary-staged')[0]!;
  assert.equal(staged.source, 'registry');
  assert.match(String(staged.msg), /; from registry$/);
  const status = await chain.chainvisor(['status']);
  assert.match(status.stdout, /staged\s+v2 \(from registry\)/, status.stdout);
});
