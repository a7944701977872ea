/**
 * One URL policy for the check and the download (issue #44): a source's binary URL that `run` would
 * refuse (`file:///etc/passwd` with file URLs off) is refused by `check-plan --upgrade` too: its row
 * says so and the check exits 79 with CHAINVISOR_URL_REFUSED; with a mirror the policy allows, both
 * use the mirror. Through the chainvisor command; documents come from a local server.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { execa } from 'execa';

import { hostPlatform } from '../../../src/download/index.js';
import { chainvisorCommand } from '../../support/chainvisor-command.js';
import { binariesInfo } from '../../support/download-kit.js';
import { startFaultServer } from '../../support/fault-server.js';
import { registryDocument } from '../../support/upgrade-sources.js';

const host = hostPlatform();
const passwd = `file:///etc/passwd?checksum=sha256:${'c'.repeat(64)}`;

async function checkPlan(args: string[], env: Record<string, string>) {
  const [file, argv] = chainvisorCommand(['check-plan', ...args]);
  return execa(file, argv, { env: { DAEMON_NAME: 'simd', CHAINVISOR_DOWNLOAD_RETRIES: '0', ...env }, extendEnv: false, reject: false });
}

test('check-plan --upgrade: a registry binary at file:///etc/passwd with file URLs off is refused, exit 79', async (t) => {
  const s = await startFaultServer();
  t.after(() => s.close());
  s.route('/registry.json', { body: registryDocument([{ name: 'v2', binaries: { [host]: passwd } }]) });
  const env = { CHAINVISOR_UPGRADE_SOURCES: 'registry', CHAINVISOR_REGISTRY_URL: s.url('/registry.json') };
  const r = await checkPlan(['--upgrade', 'v2'], env);
  assert.equal(r.exitCode, 79, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /^registry\s+file:\/\/\/etc\/passwd\s+sha256:c{64}\s+agrees, URL REFUSED$/m);
  assert.match(r.stdout, /^note: registry: refusing to download file:\/\/\/etc\/passwd: file:\/\/ URLs are disabled$/m);
  assert.match(r.stderr, /^code: CHAINVISOR_URL_REFUSED$/m);
  assert.match(r.stderr, /^hint: set CHAINVISOR_ALLOW_FILE_URLS=true/m);
  assert.match(r.stdout, /^FAILED: no binary would be installed$/m);

  // The same document with file URLs on: nothing refused (check-plan --upgrade downloads only the documents).
  const allowed = await checkPlan(['--upgrade', 'v2'], { ...env, CHAINVISOR_ALLOW_FILE_URLS: 'true' });
  assert.equal(allowed.exitCode, 0, `${allowed.stdout}\n${allowed.stderr}`);
  assert.match(allowed.stdout, /^registry\s+file:\/\/\/etc\/passwd\s+sha256:c{64}\s+agrees$/m);
});

test('check-plan --upgrade: plain http to another host is refused as the download refuses it; a mirror the policy allows is used', async (t) => {
  const s = await startFaultServer();
  t.after(() => s.close());
  const checksum = `checksum=sha256:${'d'.repeat(64)}`;
  s.route('/registry.json', { body: registryDocument([{ name: 'v2', binaries: { [host]: `http://releases.example.com/simd?${checksum}` } }]) });
  const env = { CHAINVISOR_REGISTRY_URL: s.url('/registry.json') };
  const alone = await checkPlan(['--upgrade', 'v2'], { ...env, CHAINVISOR_UPGRADE_SOURCES: 'registry' });
  assert.equal(alone.exitCode, 79, `${alone.stdout}\n${alone.stderr}`);
  assert.match(alone.stderr, /refusing to download http:\/\/releases\.example\.com\/simd: plain http to a host other than this machine/);
  assert.match(alone.stderr, /^code: CHAINVISOR_URL_REFUSED$/m);

  const info = binariesInfo({ [host]: `${s.url('/plan/simd')}?${checksum}` });
  const mirrored = await checkPlan(['--upgrade', 'v2', '--info', info], { ...env, CHAINVISOR_UPGRADE_SOURCES: 'registry,plan' });
  assert.equal(mirrored.exitCode, 0, `${mirrored.stdout}\n${mirrored.stderr}`);
  assert.match(mirrored.stdout, /^registry\s+http:\/\/releases\.example\.com\/simd\s+sha256:d{64}\s+agrees, URL REFUSED$/m);
  assert.match(mirrored.stdout, /^ok: binary from plan \(\S+\), checksum sha256:d{64} given by 2 source\(s\), quorum 1$/m);
});
