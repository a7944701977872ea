/** The versions build: launchers that run anywhere, archives that keep bin/<name> executable, Info with checksums. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { execa } from 'execa';
import { extract } from 'tar';
import unzipper from 'unzipper';

import { buildVersions, hostPlatform, upgradeInfoFor } from '../../src/index.js';
import { createZip } from '../../src/package/zip.js';

const sha256 = async (file: string) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

test('builds every version with launcher, tar.gz, zip and Info; the binaries run from copies and extracted archives', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sim-build-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const built = await buildVersions({ out: path.join(dir, 'out'), baseUrl: 'http://127.0.0.1:8080/sim' });
  assert.deepEqual(Object.keys(built.versions), ['genesis', 'v2', 'v3', 'v2-broken']);
  assert.equal(built.platform, hostPlatform());

  for (const v of Object.values(built.versions)) {
    assert.equal(v.bin, path.join(dir, 'out', v.version, 'bin', 'simd'));
    assert.equal((await stat(v.bin)).mode & 0o777, 0o755);
    assert.equal(v.sha256.tarGz, await sha256(v.tarGz));
    assert.equal(v.sha256.zip, await sha256(v.zip));
    const info = JSON.parse(await readFile(v.infoFile, 'utf8')) as { binaries: Record<string, string> };
    assert.deepEqual(info, {
      binaries: {
        [built.platform]: `http://127.0.0.1:8080/sim/${v.version}.tar.gz?checksum=sha256:${v.sha256.tarGz}`,
        any: `http://127.0.0.1:8080/sim/${v.version}.zip?checksum=sha256:${v.sha256.zip}`,
      },
    });
  }

  const v2 = built.versions.v2;
  assert.ok(v2);
  // A copy somewhere else (as a supervisor installs it) still runs.
  const copy = path.join(dir, 'elsewhere', 'simd');
  await mkdir(path.dirname(copy));
  await copyFile(v2.bin, copy);
  assert.equal((await execa(copy, ['version'])).stdout, 'v2');

  // tar.gz: bin/simd, executable, same bytes, runs.
  const fromTar = path.join(dir, 'tar');
  await mkdir(fromTar);
  await extract({ file: v2.tarGz, cwd: fromTar });
  assert.equal((await stat(path.join(fromTar, 'bin/simd'))).mode & 0o777, 0o755);
  assert.deepEqual(await readFile(path.join(fromTar, 'bin/simd')), await readFile(v2.bin));
  assert.equal((await execa(path.join(fromTar, 'bin/simd'), ['version'])).stdout, 'v2');

  // zip: a reader lists bin/ and bin/simd with Unix mode 0755 and the same bytes.
  const zip = await unzipper.Open.file(v2.zip);
  assert.deepEqual(
    zip.files.map((f) => f.path),
    ['bin/', 'bin/simd'],
  );
  const entry = zip.files[1];
  assert.ok(entry);
  assert.equal((entry.externalFileAttributes >>> 16) & 0o777, 0o755);
  assert.deepEqual(await entry.buffer(), await readFile(v2.bin));

  // Info for another server, without rebuilding; the plain binary as target.
  const other = JSON.parse(upgradeInfoFor(v2, 'http://127.0.0.1:9999', { host: 'bin', platform: 'linux/arm64' })) as { binaries: Record<string, string> };
  assert.equal(other.binaries['linux/arm64'], `http://127.0.0.1:9999/v2/bin/simd?checksum=sha256:${v2.sha256.bin}`);
});

test('another binary name; host platform keys in Go names', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sim-build-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const built = await buildVersions({ out: dir, name: 'gaiad', versions: ['genesis'] });
  assert.equal((await execa(path.join(dir, 'genesis/bin/gaiad'), ['version'])).stdout, 'genesis');
  assert.equal(hostPlatform('linux', 'x64'), 'linux/amd64');
  assert.equal(hostPlatform('darwin', 'arm64'), 'darwin/arm64');
  assert.equal(hostPlatform('win32', 'x64'), 'windows/amd64');
  assert.equal(built.versions.genesis?.info.includes('file://'), true);
  await assert.rejects(buildVersions({ out: dir, versions: ['v9'] }), /unknown versions v9/);
});

test('variants: a version with options, built under its own name, reporting it; bad variants refused before anything is built', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sim-build-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const built = await buildVersions({ out: dir, versions: [], variants: { 'genesis-old': { from: 'genesis', inPlaceTestnet: false } } });
  assert.deepEqual(Object.keys(built.versions), ['genesis-old']);
  const bin = built.versions['genesis-old']?.bin as string;
  assert.equal(bin, path.join(dir, 'genesis-old', 'bin', 'simd'));
  assert.equal((await execa(bin, ['version'])).stdout, 'genesis-old');
  const variant = async (name: string, options: Record<string, unknown>) =>
    buildVersions({ out: path.join(dir, 'bad'), versions: [], variants: { [name]: { from: 'v2', ...options } } });
  await assert.rejects(variant('x', { from: 'v9' }), /invalid variant "x": unknown version "v9" in "from"/);
  await assert.rejects(variant('v2', {}), /invalid variant "v2": it is the name of a version/);
  await assert.rejects(variant('x', { handlerPanic: 'sometimes' }), /invalid handlerPanic "sometimes": expected "always" or "state:<key prefix>"/);
  await assert.rejects(variant('x', { handlerDelay: '5 seconds' }), /handlerDelay/);
  await assert.rejects(stat(path.join(dir, 'bad')));
});

test('the zip writer records the standard CRC-32 of an entry', () => {
  const zip = createZip([{ name: 'check.txt', data: Buffer.from('123456789'), mode: 0o644 }]);
  // The local header's CRC field, then the central directory's (after the 30-byte header, name and data).
  assert.equal(zip.readUInt32LE(14), 0xcbf43926);
  const central = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  assert.equal(zip.readUInt32LE(central + 16), 0xcbf43926);
});
