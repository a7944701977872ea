/** The formats chainvisor accepts, and where the binary may be in them. */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

import { fakeBinary, goodArchives, writeArchives } from '../../scripts/make-hostile-archives.js';
import { unpack } from '../../src/verify/index.js';
import { listTree, tempDir } from '../support/download-kit.js';

const limits = { maxBytes: 64 << 20, maxEntries: 100 };

async function unpackGood(t: Parameters<typeof tempDir>[0], key: string, platform = 'linux/amd64') {
  const dir = await tempDir(t);
  const files = await writeArchives(path.join(dir, 'in'), goodArchives('simd'));
  const file = path.join(dir, 'download');
  await fs.copyFile(files[key] as string, file);
  const tree = path.join(dir, 'tree');
  const result = await unpack({ subject: { what: `${platform} binary` }, file, tree, name: 'simd', platform, limits });
  const binary = path.join(tree, 'bin', 'simd');
  assert.equal(result.binary, binary);
  assert.equal(await fs.readFile(binary, 'utf8'), fakeBinary());
  assert.equal((await fs.stat(binary)).mode & 0o111, 0o111, 'the binary is executable by all');
  return { result, tree, entries: await listTree(tree) };
}

test('plain executable: placed at bin/$DAEMON_NAME', async (t) => {
  const { result, entries } = await unpackGood(t, 'plain');
  assert.equal(result.format, 'executable');
  assert.equal(result.kind, 'script (#!)');
  assert.deepEqual(entries, ['bin/', 'bin/simd']);
});

test('gzip-compressed executable', async (t) => {
  const { result, entries } = await unpackGood(t, 'gz');
  assert.equal(result.format, 'gzip');
  assert.deepEqual(entries, ['bin/', 'bin/simd']);
});

test('tar: bin/$DAEMON_NAME with its shared libraries and their links', async (t) => {
  const { result, tree, entries } = await unpackGood(t, 'tar');
  assert.equal(result.format, 'tar');
  assert.equal(result.from, 'bin/simd');
  assert.deepEqual(entries, ['bin/', 'bin/simd', 'lib/', 'lib/libwasmvm.so', 'lib/libwasmvm.x86_64.so']);
  assert.equal(await fs.readlink(path.join(tree, 'lib', 'libwasmvm.so')), 'libwasmvm.x86_64.so');
});

test('tar.gz: detected from the bytes, libraries kept', async (t) => {
  const { result, entries } = await unpackGood(t, 'tarGz');
  assert.equal(result.format, 'tar.gz');
  assert.ok(entries.includes('lib/libwasmvm.x86_64.so'));
});

test('zip: bin/$DAEMON_NAME, modes and links from a Unix zip', async (t) => {
  const { result, tree, entries } = await unpackGood(t, 'zip');
  assert.equal(result.format, 'zip');
  assert.deepEqual(entries, ['bin/', 'bin/simd', 'lib/', 'lib/libwasmvm.so', 'lib/libwasmvm.x86_64.so']);
  assert.equal(await fs.readlink(path.join(tree, 'lib', 'libwasmvm.so')), 'libwasmvm.x86_64.so');
});

test('binary at the root of a tar.gz: moved into bin/ and made executable; other files stay', async (t) => {
  const { result, entries } = await unpackGood(t, 'rootTarGz');
  assert.equal(result.from, 'simd');
  assert.deepEqual(entries, ['bin/', 'bin/simd', 'libwasmvm.so']);
});

test('binary at the root of a zip made on Windows (no modes): moved into bin/, made executable', async (t) => {
  const { result, entries } = await unpackGood(t, 'rootZip');
  assert.equal(result.from, 'simd');
  assert.deepEqual(entries, ['README.md', 'bin/', 'bin/simd']);
});

test('windows builds: <name>.exe is accepted for a windows/* key', async (t) => {
  const dir = await tempDir(t);
  const { zip } = await import('../../scripts/make-hostile-archives.js');
  const file = path.join(dir, 'download');
  await fs.writeFile(file, zip([{ name: 'simd.exe', body: fakeBinary(), method: 'deflate' }]));
  const result = await unpack({
    subject: { what: 'windows/amd64 binary' },
    file,
    tree: path.join(dir, 'tree'),
    name: 'simd',
    platform: 'windows/amd64',
    limits,
  });
  assert.equal(result.from, 'simd.exe');
  assert.deepEqual(await listTree(path.join(dir, 'tree')), ['bin/', 'bin/simd']);
});

test('setuid bits in an archive are dropped', async (t) => {
  const dir = await tempDir(t);
  const { tar } = await import('../../scripts/make-hostile-archives.js');
  const file = path.join(dir, 'download');
  await fs.writeFile(file, tar([{ name: 'bin/simd', body: fakeBinary(), mode: 0o4755 }]));
  const result = await unpack({ subject: { what: 'linux/amd64 binary' }, file, tree: path.join(dir, 'tree'), name: 'simd', limits });
  assert.equal((await fs.stat(result.binary)).mode & 0o7777, 0o755);
});

test("an entry inside a file of the archive is refused as the archive's fault, not a disk error", async (t) => {
  const dir = await tempDir(t);
  const { tar } = await import('../../scripts/make-hostile-archives.js');
  const file = path.join(dir, 'download');
  await fs.writeFile(
    file,
    tar([
      { name: 'bin/simd', body: fakeBinary() },
      { name: 'bin/simd/x', body: 'x' },
    ]),
  );
  await assert.rejects(unpack({ subject: { what: 'linux/amd64 binary' }, file, tree: path.join(dir, 'tree'), name: 'simd', limits }), {
    code: 'CHAINVISOR_ARCHIVE_UNSAFE',
    message: /inside the file "bin\/simd"/,
  });
});
