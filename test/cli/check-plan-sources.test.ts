/**
 * `chainvisor check-plan --upgrade <name> [--height H]` (issue #34), as an operator runs it before the
 * vote ends: the plan's Info (--info) checked against the fleet's registry and the chain registry, one
 * row per source with its URL (redacted as downloads are), its checksum and whether it agrees; exit 79
 * when no binary would be installed. Documents come from a local server.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { execa } from 'execa';

import { hostPlatform } from '../../src/download/index.js';
import { chainvisorCommand } from '../support/chainvisor-command.js';
import { binariesInfo } from '../support/download-kit.js';
import { startFaultServer } from '../support/fault-server.js';
import { checksumOf, pinned, registryDocument, versionsDocument } from '../support/upgrade-sources.js';

const host = hostPlatform();
const release = Buffer.from('the v2 release');

async function checkPlan(args: string[], env: Record<string, string>) {
  const [file, argv] = chainvisorCommand(['check-plan', ...args]);
  return execa(file, argv, { env: { DAEMON_NAME: 'simd', CHAINVISOR_DOWNLOAD_RETRIES: '0', ...env }, extendEnv: false, reject: false });
}

test('check-plan --upgrade: one row per source, URLs redacted, the checksums agreeing; exit 0', async (t) => {
  const s = await startFaultServer();
  t.after(() => s.close());
  s.route('/registry.json', {
    body: registryDocument([
      { name: 'v2', height: 1234, binaries: { [host]: pinned(`${s.url('/mirror/simd')}?token=secret`, release).replace('?checksum', '&checksum') } },
    ]),
  });
  s.route('/versions.json', {
    body: versionsDocument(s.url('/releases'), [{ name: 'v2', height: 1234, binaries: { [host]: pinned(s.url('/cr/simd'), release) } }]),
  });
  const info = binariesInfo({ [host]: pinned(s.url('/plan/simd'), release) });
  const r = await checkPlan(['--upgrade', 'v2', '--height', '1234', '--info', info], {
    CHAINVISOR_UPGRADE_SOURCES: 'plan,registry,chain-registry',
    CHAINVISOR_REGISTRY_URL: s.url('/registry.json'),
    CHAINVISOR_CHAIN_REGISTRY_URL: s.url('/versions.json'),
    CHAINVISOR_CHECKSUM_QUORUM: '3',
  });
  assert.equal(r.exitCode, 0, `${r.stdout}\n${r.stderr}`);
  const lines = r.stdout.split('\n');
  assert.match(lines[0] ?? '', new RegExp(`^Upgrade v2 at height 1234, ${host}, sources: plan, registry, chain-registry$`));
  assert.match(lines[1] ?? '', /^SOURCE\s+URL\s+CHECKSUM\s+AGREEMENT$/);
  assert.match(lines[2] ?? '', new RegExp(`^plan\\s+http://127\\.0\\.0\\.1:\\d+/plan/simd\\s+${checksumOf(release)}\\s+agrees$`));
  assert.match(lines[3] ?? '', new RegExp(`^registry\\s+http://127\\.0\\.0\\.1:\\d+/mirror/simd\\?…\\s+${checksumOf(release)}\\s+agrees$`));
  assert.match(lines[4] ?? '', /^chain-registry\s+http:\/\/127\.0\.0\.1:\d+\/cr\/simd\s+sha256:[0-9a-f]{64}\s+agrees$/);
  assert.doesNotMatch(r.stdout, /secret/, 'the query is redacted');
  assert.match(r.stdout, /ok: binary from plan \(\S+\), checksum sha256:[0-9a-f]{64} given by 3 source\(s\), quorum 3; mirrors: registry, chain-registry/);
  assert.equal(s.requestsTo('/plan/simd').length, 0, 'nothing but the documents is downloaded');
});

test('check-plan --upgrade: a disagreement and the entries not used, each said; exit 79', async (t) => {
  const s = await startFaultServer();
  t.after(() => s.close());
  s.route('/registry.json', { body: registryDocument([{ name: 'v2', height: 999, binaries: { [host]: pinned(s.url('/old/simd'), 'old') } }]) });
  s.route('/versions.json', { body: versionsDocument(s.url('/releases'), [{ name: 'v2', binaries: { [host]: pinned(s.url('/cr/simd'), 'another build') } }]) });
  const info = binariesInfo({ [host]: pinned(s.url('/plan/simd'), release) });
  const r = await checkPlan(['--upgrade', 'v2', '--height', '1234', '--info', info], {
    CHAINVISOR_UPGRADE_SOURCES: 'plan,registry,chain-registry',
    CHAINVISOR_REGISTRY_URL: s.url('/registry.json'),
    CHAINVISOR_CHAIN_REGISTRY_URL: s.url('/versions.json'),
  });
  assert.equal(r.exitCode, 79, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /^plan\s+\S+\s+sha256:[0-9a-f]{64}\s+agrees$/m);
  assert.match(r.stdout, /^registry\s+http:\/\/127\.0\.0\.1:\d+\/registry\.json\s+-\s+other height$/m);
  assert.match(r.stdout, /^chain-registry\s+\S+\s+sha256:[0-9a-f]{64}\s+DISAGREES$/m);
  assert.match(r.stdout, /note: registry: its entry "v2" is for height 999, not the plan's 1234/);
  assert.match(r.stderr, /code: CHAINVISOR_CHECKSUM_DISAGREEMENT/);
  assert.match(r.stdout, /^FAILED: no binary would be installed$/m);
});

test('check-plan --upgrade without --info: a plan without binaries, the registry unreachable, the chain registry gives the URL', async (t) => {
  const s = await startFaultServer();
  t.after(() => s.close());
  s.route('/versions.json', { body: versionsDocument(s.url('/releases'), [{ name: 'v2', binaries: { [host]: pinned(s.url('/cr/simd'), release) } }]) });
  const r = await checkPlan(['--upgrade', 'v2'], {
    CHAINVISOR_UPGRADE_SOURCES: 'plan,registry,chain-registry',
    CHAINVISOR_REGISTRY_URL: 'http://127.0.0.1:1/registry.json',
    CHAINVISOR_CHAIN_REGISTRY_URL: s.url('/versions.json'),
  });
  assert.equal(r.exitCode, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /^plan\s+the plan\s+-\s+no entry$/m);
  assert.match(r.stdout, /^registry\s+http:\/\/127\.0\.0\.1:1\/registry\.json\s+-\s+UNUSABLE$/m);
  assert.match(r.stdout, /ok: binary from chain-registry/);
});

test('check-plan --height without --upgrade, or not a height: usage errors (64)', async () => {
  const a = await checkPlan(['--height', '5', '--info', '{}'], {});
  assert.equal(a.exitCode, 64, a.stderr);
  assert.match(a.stderr, /--height needs --upgrade/);
  const b = await checkPlan(['--upgrade', 'v2', '--height', '12abc'], {});
  assert.equal(b.exitCode, 64, b.stderr);
  assert.match(b.stderr, /--height must be a positive whole number/);
});
