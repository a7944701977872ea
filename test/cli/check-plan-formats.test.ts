/**
 * `chainvisor check-plan` as an operator runs it (a real process: bin/chainvisor.js, or the release
 * executable with CHAINVISOR_TEST_EXECUTABLE), on .tar.zst, .tar.xz, .tar.bz2 and a bare .xz served
 * by a local server: each is downloaded, verified, unpacked and smoke-tested — which also proves the
 * xz WebAssembly and the bzip2 decoder work inside the single executable's bundle. Its help names
 * every row of the formats table (src/verify/archive/formats.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { execa } from 'execa';

import { compressedArchives, extensions } from '../../scripts/make-compressed-archives.js';
import { goodArchives } from '../../scripts/make-hostile-archives.js';
import { hostPlatform } from '../../src/download/index.js';
import { formats, formatsHelp } from '../../src/verify/index.js';
import { chainvisorCommand } from '../support/chainvisor-command.js';
import { binariesInfo, withChecksum } from '../support/download-kit.js';
import { startFaultServer } from '../support/fault-server.js';

const host = hostPlatform();

const cases = [
  { compressor: 'zstd', key: 'tar', format: 'tar.zst', from: 'bin/simd' },
  { compressor: 'xz', key: 'tar', format: 'tar.xz', from: 'bin/simd' },
  { compressor: 'bzip2', key: 'tar', format: 'tar.bz2', from: 'bin/simd' },
  { compressor: 'xz', key: 'bare', format: 'xz', from: '(plain executable)' },
] as const;

for (const { compressor, key, format, from } of cases) {
  test(`check-plan --info with a ${format}: downloaded, verified, unpacked, smoke-tested`, async (t) => {
    const data = compressedArchives(compressor, 'simd')[key]?.data as Buffer;
    const s = await startFaultServer();
    t.after(() => s.close());
    const route = `/simd.${key === 'tar' ? extensions[compressor].tar : extensions[compressor].bare}`;
    s.route(route, { body: data });
    const [file, args] = chainvisorCommand(['check-plan', '--info', binariesInfo({ [host]: withChecksum(s.url(route), data) })]);
    const r = await execa(file, args, { env: { DAEMON_NAME: 'simd', CHAINVISOR_DOWNLOAD_RETRIES: '0' }, reject: false });
    assert.equal(r.exitCode, 0, `${r.stdout}\n${r.stderr}`);
    assert.ok(r.stdout.includes(`${from} (${format})`), r.stdout);
    assert.match(r.stdout, /ok: v2\.0\.0/);
  });
}

test('check-plan --info with a plain executable: the binary column says so once', async (t) => {
  const data = goodArchives('simd').plain?.data as Buffer;
  const s = await startFaultServer();
  t.after(() => s.close());
  s.route('/simd', { body: data });
  const [file, args] = chainvisorCommand(['check-plan', '--info', binariesInfo({ [host]: withChecksum(s.url('/simd'), data) })]);
  const r = await execa(file, args, { env: { DAEMON_NAME: 'simd', CHAINVISOR_DOWNLOAD_RETRIES: '0' }, reject: false });
  assert.equal(r.exitCode, 0, `${r.stdout}\n${r.stderr}`);
  const row = r.stdout.split('\n').find((line) => line.startsWith(host));
  assert.match(row ?? '', / \(plain executable\) +ok: v2\.0\.0$/, r.stdout);
});

test('check-plan --info that is neither JSON nor a URL is a usage error (64); a JSON Info of the wrong shape is a finding (79)', async () => {
  for (const info of ['not json', '{"binaries": {"linux/amd64": "https://x"']) {
    const [file, args] = chainvisorCommand(['check-plan', '--info', info]);
    const r = await execa(file, args, { env: { DAEMON_NAME: 'simd' }, reject: false });
    assert.equal(r.exitCode, 64, r.stderr);
    assert.match(r.stderr, /check-plan --info must be the Info as JSON or a URL to it, not "/);
  }
  const [file, args] = chainvisorCommand(['check-plan', '--info', '{"binaries": {}}']);
  const r = await execa(file, args, { env: { DAEMON_NAME: 'simd' }, reject: false });
  assert.equal(r.exitCode, 79, r.stderr);
  assert.match(r.stderr, /"binaries" is empty/);
});

test("check-plan --help lists the formats of the table, as 'chainvisor help check-plan' does", async () => {
  for (const command of [
    ['check-plan', '--help'],
    ['help', 'check-plan'],
  ]) {
    const [file, args] = chainvisorCommand(command);
    const r = await execa(file, args, { reject: false });
    assert.equal(r.exitCode, 0, r.stderr);
    assert.ok(r.stdout.includes(formatsHelp), r.stdout);
    const listed = r.stdout.split(/[\s,:]+/).map((word) => word.replace(/\.$/, ''));
    for (const row of formats) {
      assert.ok(listed.includes(row.name), `${row.name} is not in:\n${r.stdout}`);
      if (row.kind === 'compression') assert.ok(listed.includes(row.tar.name), `${row.tar.name} is not in:\n${r.stdout}`);
    }
  }
});
