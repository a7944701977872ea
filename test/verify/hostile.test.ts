/**
 * Every hostile archive from scripts/make-hostile-archives.ts, one test each: the archive is refused
 * with a stable code, and nothing is written outside the extraction folder.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { hostileArchives, writeArchives } from '../../scripts/make-hostile-archives.js';
import { ChainvisorError, ExitCode } from '../../src/shared/errors/index.js';
import { unpack } from '../../src/verify/index.js';

let root: string;
let files: Record<string, string>;
let run = 0;

before(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-hostile-'));
  // Trees are extracted at <root>/work-N/tree: `../../evil` from there is <root>/evil.
  files = await writeArchives(
    path.join(root, 'archives'),
    hostileArchives({ name: 'simd', escapeRelative: '../../evil', escapeAbsolute: path.join(root, 'abs-evil') }),
  );
});

after(() => fs.rm(root, { recursive: true, force: true }));

async function refuse(key: string, code: string): Promise<ChainvisorError> {
  const source = files[key];
  assert.ok(source, `no archive ${key}`);
  const work = path.join(root, `work-${run++}`);
  await fs.mkdir(work);
  const file = path.join(work, 'download');
  await fs.copyFile(source, file);
  const error = await unpack({
    subject: { what: 'linux/amd64 binary', url: 'https://example.test/simd.tar.gz?…' },
    file,
    tree: path.join(work, 'tree'),
    name: 'simd',
    limits: { maxBytes: 4 << 20, maxEntries: 100 },
  }).then(
    () => assert.fail(`${key} was accepted`),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ChainvisorError, `expected a ChainvisorError, got ${String(error)}`);
  assert.equal(error.code, code, error.message);
  assert.equal(error.exitCode, ExitCode.upgradeFailed);
  assert.ok(error.hint, 'every refusal carries a hint');
  // Nothing escaped: neither target exists, and the work folder holds only what we put there.
  await assert.rejects(fs.lstat(path.join(root, 'evil')), { code: 'ENOENT' });
  await assert.rejects(fs.lstat(path.join(root, 'abs-evil')), { code: 'ENOENT' });
  assert.deepEqual(
    (await fs.readdir(root)).filter((n) => !n.startsWith('work-') && n !== 'archives'),
    [],
  );
  return error;
}

describe('hostile archives are refused', () => {
  test('tar: ../ path traversal', async () => {
    const e = await refuse('tarTraversal', 'CHAINVISOR_ARCHIVE_UNSAFE');
    assert.match(e.message, /"\.\.\/\.\.\/evil" has a '\.\.' component/);
  });

  test('tar: absolute path', async () => {
    const e = await refuse('tarAbsolute', 'CHAINVISOR_ARCHIVE_UNSAFE');
    assert.match(e.message, /has an absolute path/);
  });

  test('tar: symlink pointing outside (relative)', async () => {
    const e = await refuse('tarSymlinkEscape', 'CHAINVISOR_ARCHIVE_UNSAFE');
    assert.match(e.message, /symbolic link to "\.\.\/\.\.", outside the archive/);
  });

  test('tar: symlink to an absolute path', async () => {
    const e = await refuse('tarSymlinkAbsolute', 'CHAINVISOR_ARCHIVE_UNSAFE');
    assert.match(e.message, /symbolic link to the absolute path/);
  });

  test('tar: symlinks that escape only through each other', async () => {
    const e = await refuse('tarSymlinkChain', 'CHAINVISOR_ARCHIVE_UNSAFE');
    assert.match(e.message, /"p\/out" is a symbolic link that resolves outside the archive/);
  });

  test('tar: a file written through a symlink', async () => {
    const e = await refuse('tarThroughSymlink', 'CHAINVISOR_ARCHIVE_UNSAFE');
    assert.match(e.message, /through the symbolic link "lib"/);
  });

  test('tar: hardlink pointing outside', async () => {
    const e = await refuse('tarHardlinkEscape', 'CHAINVISOR_ARCHIVE_UNSAFE');
    assert.match(e.message, /hard link to "\.\.\/\.\.\/evil", outside the archive/);
  });

  test('tar: hardlink to an absolute path', async () => {
    const e = await refuse('tarHardlinkAbsolute', 'CHAINVISOR_ARCHIVE_UNSAFE');
    assert.match(e.message, /hard link to the absolute path/);
  });

  test('tar: device entries', async () => {
    const e = await refuse('tarDevice', 'CHAINVISOR_ARCHIVE_UNSAFE');
    assert.match(e.message, /"dev\/sda" is a block device/);
  });

  test('tar: fifo entry', async () => {
    const e = await refuse('tarFifo', 'CHAINVISOR_ARCHIVE_UNSAFE');
    assert.match(e.message, /named pipe/);
  });

  test('tar: the binary replaced by a link later in the archive', async () => {
    const e = await refuse('tarDuplicate', 'CHAINVISOR_ARCHIVE_UNSAFE');
    assert.match(e.message, /"bin\/simd" appears twice/);
  });

  test('zip: ../ path traversal', async () => {
    const e = await refuse('zipTraversal', 'CHAINVISOR_ARCHIVE_UNSAFE');
    assert.match(e.message, /has a '\.\.' component/);
  });

  test('zip: ..\\ traversal with Windows separators', async () => {
    const e = await refuse('zipBackslashTraversal', 'CHAINVISOR_ARCHIVE_UNSAFE');
    assert.match(e.message, /has a '\.\.' component/);
  });

  test('zip: absolute path', async () => {
    const e = await refuse('zipAbsolute', 'CHAINVISOR_ARCHIVE_UNSAFE');
    assert.match(e.message, /has an absolute path/);
  });

  test('zip: symlink pointing outside', async () => {
    const e = await refuse('zipSymlinkEscape', 'CHAINVISOR_ARCHIVE_UNSAFE');
    assert.match(e.message, /symbolic link to "\.\.\/\.\.", outside the archive/);
  });

  test('tar.gz: decompression bomb (16 MiB of zeros in a few KiB)', async () => {
    const e = await refuse('tarGzBomb', 'CHAINVISOR_ARCHIVE_TOO_LARGE');
    assert.match(e.message, /expands/);
  });

  test('tar: more bytes than CHAINVISOR_EXTRACT_MAX_BYTES', async () => {
    const e = await refuse('tarOversized', 'CHAINVISOR_ARCHIVE_TOO_LARGE');
    assert.match(e.message, /expands to more than 4194304 bytes \(4\.0 MiB\)/);
    assert.match(e.hint ?? '', /CHAINVISOR_EXTRACT_MAX_BYTES/);
  });

  test('zip: bomb whose header understates the inflated size', async () => {
    const e = await refuse('zipBomb', 'CHAINVISOR_ARCHIVE_TOO_LARGE');
    assert.match(e.message, /more than the 1024 bytes its header declares/);
  });

  test('tar: too many entries', async () => {
    const e = await refuse('tarTooManyEntries', 'CHAINVISOR_ARCHIVE_TOO_LARGE');
    assert.match(e.message, /more than 100 entries/);
    assert.match(e.hint ?? '', /CHAINVISOR_EXTRACT_MAX_ENTRIES/);
  });

  test('binary missing: the error lists what the archive holds', async () => {
    const e = await refuse('tarMissingBinary', 'CHAINVISOR_BINARY_NOT_IN_ARCHIVE');
    assert.match(e.message, /neither bin\/simd nor simd: its top level holds "bin\/", "README.md"/);
  });

  test('binary one folder down: the hint names the wrapping folder', async () => {
    const e = await refuse('tarWrappedBinary', 'CHAINVISOR_BINARY_NOT_IN_ARCHIVE');
    assert.match(e.hint ?? '', /wraps everything in "simd-v2\/"/);
  });

  test('truncated tar.gz', async () => {
    await refuse('truncatedTarGz', 'CHAINVISOR_ARCHIVE_INVALID');
  });

  test('an HTML error page instead of a binary', async () => {
    const e = await refuse('htmlPage', 'CHAINVISOR_UNKNOWN_FORMAT');
    assert.match(e.message, /an HTML page/);
  });
});
