/**
 * Upgrade sources at the halt (issue #34), end to end with the real `chainvisor run` (or the release
 * executable): a fake node halts for v2 and chainvisor finds the binary through
 * CHAINVISOR_UPGRADE_SOURCES: a plan without binaries served by the registry or the chain registry;
 * the plan's URL down and the registry's mirror of the same file used; checksums that disagree (exit
 * 79, nothing installed); a quorum of 2 met and not met; an entry for another height ignored; a
 * registry that is unreachable or hostile skipped with a warning; a registry that never answers or
 * trickles is late after 5 s, named, and not waited for; a disagreement first met at the halt is sent
 * as `checksum-disagreement`. Every document comes from a local server.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { gzip, tar } from '../../scripts/make-hostile-archives.js';
import { hostPlatform } from '../../src/download/index.js';
import { binariesInfo } from '../support/download-kit.js';
import { fakeNodeScript, plan } from '../support/fake-node.js';
import { type FaultServer, startFaultServer } from '../support/fault-server.js';
import { makeHome, type TestHome } from '../support/home.js';
import { checksumOf, hostileRegistries, pinned, registryDocument, versionsDocument } from '../support/upgrade-sources.js';
import { refusedUrl, startWebhookReceiver } from '../support/webhook-receiver.js';

const host = hostPlatform();

describe('chainvisor run: upgrade sources at the halt', () => {
  let t: TestHome;
  let server: FaultServer;
  let archive: Buffer;
  beforeEach(async () => {
    t = await makeHome({
      DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true',
      DAEMON_RESTART_AFTER_UPGRADE: 'true',
      CHAINVISOR_DOWNLOAD_RETRIES: '0',
      CHAINVISOR_LOG_FORMAT: 'text',
    });
    server = await startFaultServer();
    const v2 = fakeNodeScript({ label: 'v2', journal: t.journal, runMs: 50, exitCode: 0 });
    archive = gzip(
      tar([
        { name: 'bin/simd', body: v2, mode: 0o755 },
        { name: 'lib/libwasmvm.so', body: randomBytes(1024) },
      ]),
    );
    server.route('/v2/simd.tar.gz', { body: archive });
    server.route('/mirror/simd.tar.gz', { body: archive });
  });
  afterEach(async () => {
    await server.close();
    await t.cleanup();
  });

  async function genesisHaltingFor(info: string | undefined): Promise<void> {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10, info), style: 'exit' } });
    const init = await t.cli(['init', genesis]);
    assert.equal(init.exitCode, 0, init.stderr);
  }

  const registry = (upgrades: Parameters<typeof registryDocument>[0]) => {
    server.route('/registry.json', { body: registryDocument(upgrades) });
    return server.url('/registry.json');
  };
  const chainRegistry = (entries: Parameters<typeof versionsDocument>[1]) => {
    server.route('/testchain/versions.json', { body: versionsDocument(server.url('/releases'), entries) });
    return server.url('/testchain/versions.json');
  };

  async function assertApplied(r: { exitCode: number | undefined; stderr: string }): Promise<void> {
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(await t.current(), 'upgrades/v2');
    assert.deepEqual((await t.journalLines()).slice(2), ['v2 pre-upgrade 1', 'v2 start [start]', 'v2 exit 0']);
  }

  async function assertNothingInstalled(r: { exitCode: number | undefined; stderr: string }, code: string): Promise<void> {
    assert.equal(r.exitCode, 79, r.stderr);
    assert.match(r.stderr, new RegExp(code));
    assert.equal(await t.current(), 'genesis');
    assert.deepEqual(await fs.readdir(path.join(t.home, 'cosmovisor', 'upgrades')), [], 'nothing under upgrades/');
    assert.deepEqual(await t.journalLines(), ['genesis start [start]', 'genesis halted']);
  }

  test('a plan without binaries: the binary comes from the registry', async () => {
    await genesisHaltingFor(undefined);
    const url = registry([{ name: 'v2', height: 10, binaries: { [host]: pinned(server.url('/v2/simd.tar.gz'), archive) } }]);
    const r = await t.cli(['run', 'start'], { CHAINVISOR_UPGRADE_SOURCES: 'plan,registry', CHAINVISOR_REGISTRY_URL: url });
    await assertApplied(r);
    assert.match(r.stderr, /the binary of upgrade "v2" comes from registry/);
    assert.equal(server.requestsTo('/registry.json').length, 1, 'the registry is read once');
  });

  test('a plan without binaries: the binary comes from the chain registry (versions.json as the registry writes it)', async () => {
    await genesisHaltingFor('see https://github.com/example/testchain/releases/tag/v2.0.0');
    const url = chainRegistry([
      { name: 'v2', height: 10, binaries: { [host]: pinned(server.url('/v2/simd.tar.gz'), archive), 'darwin/arm64': `${server.url('/x')}%22,` } },
    ]);
    const r = await t.cli(['run', 'start'], { CHAINVISOR_UPGRADE_SOURCES: 'plan,chain-registry', CHAINVISOR_CHAIN_REGISTRY_URL: url });
    await assertApplied(r);
    assert.match(r.stderr, /the binary of upgrade "v2" comes from chain-registry/);
    assert.match(r.stderr, /upgrade source plan .* is not used for upgrade "v2": the plan's Info is neither a JSON binaries map nor a URL/);
  });

  test("the plan's URL fails: the registry's mirror with the same checksum is used", async () => {
    server.route('/gone/simd.tar.gz', { body: '', always: { kind: 'status', status: 404 } });
    await genesisHaltingFor(binariesInfo({ [host]: pinned(server.url('/gone/simd.tar.gz'), archive) }));
    const url = registry([{ name: 'v2', binaries: { [host]: pinned(server.url('/mirror/simd.tar.gz'), archive) } }]);
    const r = await t.cli(['run', 'start'], { CHAINVISOR_UPGRADE_SOURCES: 'plan,registry', CHAINVISOR_REGISTRY_URL: url });
    await assertApplied(r);
    assert.match(r.stderr, /the download from plan failed; trying the same binary \(same checksum\) from registry/);
    assert.equal(server.requestsTo('/mirror/simd.tar.gz').length, 1);
  });

  test('a mirror with another checksum is not tried: the sources disagree, nothing is installed, exit 79', async () => {
    const other = Buffer.concat([archive, Buffer.from('another build')]);
    await genesisHaltingFor(binariesInfo({ [host]: pinned(server.url('/v2/simd.tar.gz'), archive) }));
    const url = registry([{ name: 'v2', binaries: { [host]: pinned(server.url('/mirror/simd.tar.gz'), other) } }]);
    const r = await t.cli(['run', 'start'], { CHAINVISOR_UPGRADE_SOURCES: 'plan,registry', CHAINVISOR_REGISTRY_URL: url });
    await assertNothingInstalled(r, 'CHAINVISOR_CHECKSUM_DISAGREEMENT');
    assert.ok(r.stderr.includes(`plan gives ${checksumOf(archive)}; registry gives ${checksumOf(other)}`), r.stderr);
    assert.equal(server.requestsTo('/v2/simd.tar.gz').length + server.requestsTo('/mirror/simd.tar.gz').length, 0, 'nothing downloaded');
  });

  test('a quorum of 2 met: the plan and the chain registry give the same checksum', async () => {
    await genesisHaltingFor(binariesInfo({ [host]: pinned(server.url('/v2/simd.tar.gz'), archive) }));
    const url = chainRegistry([{ name: 'v2', height: 10, binaries: { [host]: pinned(server.url('/mirror/simd.tar.gz'), archive) } }]);
    const r = await t.cli(['run', 'start'], {
      CHAINVISOR_UPGRADE_SOURCES: 'plan,chain-registry',
      CHAINVISOR_CHAIN_REGISTRY_URL: url,
      CHAINVISOR_CHECKSUM_QUORUM: '2',
    });
    await assertApplied(r);
    assert.match(r.stderr, /checksum sha256:[0-9a-f]{64} given by plan, chain-registry/);
  });

  test("a quorum of 2 not met: the chain registry's entry has no checksum; nothing is installed, exit 79", async () => {
    await genesisHaltingFor(binariesInfo({ [host]: pinned(server.url('/v2/simd.tar.gz'), archive) }));
    const url = chainRegistry([{ name: 'v2', binaries: { [host]: server.url('/mirror/simd.tar.gz') } }]);
    const r = await t.cli(['run', 'start'], {
      CHAINVISOR_UPGRADE_SOURCES: 'plan,chain-registry',
      CHAINVISOR_CHAIN_REGISTRY_URL: url,
      CHAINVISOR_CHECKSUM_QUORUM: '2',
    });
    await assertNothingInstalled(r, 'CHAINVISOR_CHECKSUM_QUORUM_NOT_MET');
    assert.match(r.stderr, /CHAINVISOR_CHECKSUM_QUORUM is 2 but for the \S+ binary of upgrade "v2" 1 give sha256:/);
    assert.match(r.stderr, /chain-registry: no checksum/);
  });

  test('DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM=false allows a binary without any checksum only with a quorum of 1', async () => {
    await genesisHaltingFor(undefined);
    const url = registry([{ name: 'v2', binaries: { [host]: server.url('/v2/simd.tar.gz') } }]);
    const env = { CHAINVISOR_UPGRADE_SOURCES: 'registry,plan', CHAINVISOR_REGISTRY_URL: url, DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: 'false' };
    const refused = await t.cli(['run', 'start'], { ...env, CHAINVISOR_CHECKSUM_QUORUM: '2' });
    await assertNothingInstalled(refused, 'CHAINVISOR_CHECKSUM_QUORUM_NOT_MET');
    const required = await t.cli(['run', 'start'], { ...env, DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: 'true' });
    assert.equal(required.exitCode, 79, required.stderr);
    assert.match(required.stderr, /CHAINVISOR_CHECKSUM_REQUIRED/);
    await assertApplied(await t.cli(['run', 'start'], env));
  });

  test('an entry of the same name for another height is not used, and is said', async () => {
    await genesisHaltingFor(binariesInfo({ [host]: pinned(server.url('/v2/simd.tar.gz'), archive) }));
    const wrong = Buffer.from('an older v2');
    const url = registry([{ name: 'v2', height: 999, binaries: { [host]: pinned(server.url('/mirror/simd.tar.gz'), wrong) } }]);
    const r = await t.cli(['run', 'start'], { CHAINVISOR_UPGRADE_SOURCES: 'registry,plan', CHAINVISOR_REGISTRY_URL: url });
    await assertApplied(r);
    assert.match(r.stderr, /upgrade source registry .* is not used for upgrade "v2": its entry "v2" is for height 999, not the plan's 10/);
    assert.match(r.stderr, /comes from plan/);
  });

  test('an unreachable registry is a warning, and the next source is asked', async () => {
    await genesisHaltingFor(binariesInfo({ [host]: pinned(server.url('/v2/simd.tar.gz'), archive) }));
    const url = `${await refusedUrl()}/registry.json`;
    const r = await t.cli(['run', 'start'], { CHAINVISOR_UPGRADE_SOURCES: 'registry,plan', CHAINVISOR_REGISTRY_URL: url });
    await assertApplied(r);
    assert.match(
      r.stderr,
      /upgrade source registry \(http:\/\/127\.0\.0\.1:\d+\/hook\/registry\.json\) is not used for upgrade "v2": .*(refused|ECONNREFUSED)/,
    );
  });

  const slowRegistries = [
    { what: 'accepts and never answers', fault: { kind: 'no-answer' } },
    { what: 'trickles its document', fault: { kind: 'trickle', bytes: 1, everyMs: 300 } },
  ] as const;
  for (const slow of slowRegistries) {
    test(`a registry that ${slow.what} is late at the height: the plan's binary is switched to within 15 s, the registry named`, async () => {
      await genesisHaltingFor(binariesInfo({ [host]: pinned(server.url('/v2/simd.tar.gz'), archive) }));
      const mirror = { name: 'v2', binaries: { [host]: pinned(server.url('/mirror/simd.tar.gz'), archive) } };
      server.route('/registry.json', { body: registryDocument([mirror]), always: slow.fault });
      const started = Date.now();
      const r = await t.cli(['run', 'start'], { CHAINVISOR_UPGRADE_SOURCES: 'plan,registry', CHAINVISOR_REGISTRY_URL: server.url('/registry.json') });
      await assertApplied(r);
      assert.ok(Date.now() - started < 15_000, `switched ${Date.now() - started} ms after the start, over 15 s`);
      assert.match(r.stderr, /upgrade source registry \(http:\/\/127\.0\.0\.1:\d+\/registry\.json\) is not used for upgrade "v2": late: no answer within 5 s/);
      assert.match(r.stderr, /the binary of upgrade "v2" comes from plan/);
    });
  }

  test('a quorum of 2 that needs the late registry fails at the height, naming it, without waiting for it', async () => {
    await genesisHaltingFor(binariesInfo({ [host]: pinned(server.url('/v2/simd.tar.gz'), archive) }));
    server.route('/registry.json', { body: registryDocument([]), always: { kind: 'no-answer' } });
    const started = Date.now();
    const r = await t.cli(['run', 'start'], {
      CHAINVISOR_UPGRADE_SOURCES: 'plan,registry',
      CHAINVISOR_REGISTRY_URL: server.url('/registry.json'),
      CHAINVISOR_CHECKSUM_QUORUM: '2',
    });
    await assertNothingInstalled(r, 'CHAINVISOR_CHECKSUM_QUORUM_NOT_MET');
    assert.ok(Date.now() - started < 15_000, `failed ${Date.now() - started} ms after the start, over 15 s`);
    assert.match(r.stderr, /CHAINVISOR_CHECKSUM_QUORUM is 2 but .* 1 give sha256:[0-9a-f]{64} \(plan\); found: .*registry: late: no answer within 5 s/);
  });

  test('a disagreement first met at the halt is sent as checksum-disagreement, naming each source and value', async () => {
    const hook = await startWebhookReceiver();
    try {
      const other = Buffer.concat([archive, Buffer.from('another build')]);
      await genesisHaltingFor(binariesInfo({ [host]: pinned(server.url('/v2/simd.tar.gz'), archive) }));
      const url = registry([{ name: 'v2', binaries: { [host]: pinned(server.url('/mirror/simd.tar.gz'), other) } }]);
      const r = await t.cli(['run', 'start'], { CHAINVISOR_UPGRADE_SOURCES: 'plan,registry', CHAINVISOR_REGISTRY_URL: url, CHAINVISOR_WEBHOOK_URL: hook.url });
      await assertNothingInstalled(r, 'CHAINVISOR_CHECKSUM_DISAGREEMENT');
      const events = hook.received.map((h) => h.body.event);
      assert.deepEqual(
        events.filter((e) => e === 'checksum-disagreement' || e === 'upgrade-failed'),
        ['checksum-disagreement', 'upgrade-failed'],
        JSON.stringify(events),
      );
      const sent = hook.received.find((h) => h.body.event === 'checksum-disagreement')?.body;
      assert.ok(String(sent?.text).includes(`plan gives ${checksumOf(archive)}; registry gives ${checksumOf(other)}`), JSON.stringify(sent));
      assert.deepEqual(sent?.upgrade, { name: 'v2', height: 10 });
      assert.match(r.stderr, /checksum-disagreement/, 'logged with its event name');
    } finally {
      await hook.close();
    }
  });

  for (const hostile of hostileRegistries) {
    test(`a hostile registry document (${hostile.what}) is refused with a warning, and the next source is asked`, async () => {
      await genesisHaltingFor(binariesInfo({ [host]: pinned(server.url('/v2/simd.tar.gz'), archive) }));
      server.route('/registry.json', { body: hostile.body });
      const r = await t.cli(['run', 'start'], { CHAINVISOR_UPGRADE_SOURCES: 'registry,plan', CHAINVISOR_REGISTRY_URL: server.url('/registry.json') });
      await assertApplied(r);
      assert.match(r.stderr, /upgrade source registry .* is not used for upgrade "v2"/);
      assert.match(r.stderr, hostile.says);
      assert.doesNotMatch(r.stderr, /at .*\.js:\d+|unexpected error/, 'no stack trace');
    });
  }
});
