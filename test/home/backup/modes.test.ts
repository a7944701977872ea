/**
 * Each backup mode gives a backup with the data's exact content (files, modes, times, links); link
 * mode shares the inode of the table files only; a symlinked data folder is backed up by content;
 * a refused clone or hard link falls back to a copy and says so once; a full disk is refused before
 * a byte is written.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { backupData, isImmutableTable } from '../../../src/home/backup/index.js';
import type { ChainvisorError } from '../../../src/shared/errors/index.js';
import { makeDataTree, snapshot, withoutInodes } from '../../support/data-tree.js';
import { memoryLogger } from '../../support/download-kit.js';

describe('backup modes', () => {
  let root: string;
  let data: string;
  let backups: string;
  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-backup-'));
    data = path.join(root, 'data');
    backups = path.join(root, 'backups');
    await fs.mkdir(data);
    await fs.mkdir(backups);
    await makeDataTree(data);
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  for (const mode of ['copy', 'reflink', 'link', 'auto'] as const) {
    test(`${mode}: the backup holds the same files, modes, times and links`, async () => {
      const log = memoryLogger();
      const progress: number[] = [];
      const result = await backupData({ dataDir: data, backupDir: backups, logger: log.logger, mode, onProgress: (b) => progress.push(b) });
      assert.ok(result);
      assert.match(path.basename(result.path), /^data-backup-\d{4}-\d{1,2}-\d{1,2}$/);
      assert.deepEqual(await fs.readdir(backups), [path.basename(result.path)], 'only the finished folder, no partial left');
      const source = await snapshot(data);
      const copy = await snapshot(result.path);
      assert.deepEqual(withoutInodes(copy), withoutInodes(source));
      assert.equal(result.files, 14);
      assert.equal(progress.at(-1), result.bytes, 'progress reaches the total');
      if (result.mode === 'link') {
        for (const [rel, node] of copy) {
          if (node.kind !== 'file') continue;
          if (isImmutableTable(rel)) assert.equal(node.ino, source.get(rel)?.ino, `${rel} is a hard link`);
          else assert.notEqual(node.ino, source.get(rel)?.ino, `${rel} is a copy`);
        }
        assert.equal(result.linked, 6);
      } else {
        for (const [rel, node] of copy) if (node.kind === 'file') assert.notEqual(node.ino, source.get(rel)?.ino, `${rel} is its own file`);
      }
      if (mode !== 'auto') assert.ok(result.mode === mode || (mode === 'reflink' && result.mode === 'copy'));
    });
  }

  test('auto picks link on a filesystem without clones (and reflink where clones work)', async () => {
    const log = memoryLogger();
    const result = await backupData({ dataDir: data, backupDir: backups, logger: log.logger });
    assert.ok(result);
    assert.ok(result.mode === 'reflink' || result.mode === 'link', result.mode);
    assert.ok(log.lines().some((l) => l.mode === result.mode && String(l.reason).startsWith('auto:')));
  });

  test('a data folder that is a symlink is backed up by content', async () => {
    const real = path.join(root, 'volume', 'node-data');
    await fs.mkdir(path.dirname(real));
    await fs.rename(data, real);
    await fs.symlink(real, data);
    for (const mode of ['copy', 'link'] as const) {
      const result = await backupData({
        dataDir: data,
        backupDir: backups,
        logger: memoryLogger().logger,
        mode,
        now: new Date(2026, 0, mode === 'copy' ? 1 : 2),
      });
      assert.ok(result);
      assert.ok((await fs.lstat(result.path)).isDirectory(), 'a folder, not a copy of the link');
      assert.equal(await fs.readFile(path.join(result.path, 'application.db', 'CURRENT'), 'utf8'), 'MANIFEST-000004\n');
      assert.deepEqual(withoutInodes(await snapshot(result.path)), withoutInodes(await snapshot(real)));
    }
  });

  test('a backup folder on another filesystem: link mode copies instead and says so once', async (t) => {
    const other = await folderElsewhere(data);
    if (other === undefined) {
      t.skip('no second filesystem (/dev/shm, /var/tmp or /tmp) here');
      return;
    }
    t.after(() => fs.rm(other, { recursive: true, force: true }));
    const log = memoryLogger();
    const result = await backupData({ dataDir: data, backupDir: other, logger: log.logger, mode: 'link' });
    assert.ok(result);
    assert.equal(result.linked, 0);
    assert.equal(result.copied, 14);
    const warnings = log.lines().filter((l) => /cannot hard link .*another filesystem/.test(String(l.msg)));
    assert.equal(warnings.length, 1, 'said once, not once per table');
    assert.deepEqual(withoutInodes(await snapshot(result.path)), withoutInodes(await snapshot(data)));
  });

  test('reflink where the filesystem cannot clone: a copy, said once', async (t) => {
    const log = memoryLogger();
    const result = await backupData({ dataDir: data, backupDir: backups, logger: log.logger, mode: 'reflink' });
    assert.ok(result);
    if (result.mode === 'reflink') {
      t.diagnostic('this filesystem clones: nothing to fall back from');
      assert.equal(result.cloned, 14);
      return;
    }
    assert.equal(result.copied, 14);
    assert.equal(log.lines().filter((l) => /cannot clone files from the data/.test(String(l.msg))).length, 1);
  });

  test('not enough space: refused with 81 and CHAINVISOR_BACKUP_NO_SPACE, both sizes named, nothing written', async () => {
    const log = memoryLogger();
    const statfs = async () => ({ bavail: 10, bsize: 4096 }); // 40 KiB free
    for (const mode of ['copy', 'link'] as const) {
      await assert.rejects(backupData({ dataDir: data, backupDir: backups, logger: log.logger, mode, statfs }), (error: ChainvisorError) => {
        assert.equal(error.code, 'CHAINVISOR_BACKUP_NO_SPACE');
        assert.equal(error.exitCode, 81);
        assert.match(error.message, /it needs [\d.]+ KiB \(\d+ bytes\), 40 KiB \(40960 bytes\) is available; nothing was written/);
        assert.match(error.hint ?? '', /DAEMON_DATA_BACKUP_DIR|UNSAFE_SKIP_BACKUP/);
        return true;
      });
    }
    assert.deepEqual(await fs.readdir(backups), []);
  });

  test('not enough space: only a copy is told to try link mode; a link backup is told what helps', async () => {
    const statfs = async () => ({ bavail: 10, bsize: 4096 });
    const hintFor = async (mode: 'copy' | 'link'): Promise<string> => {
      const error = await backupData({ dataDir: data, backupDir: backups, logger: memoryLogger().logger, mode, statfs }).then(
        () => assert.fail('the backup should be refused'),
        (e: unknown) => e as ChainvisorError,
      );
      assert.equal(error.code, 'CHAINVISOR_BACKUP_NO_SPACE');
      return error.hint ?? '';
    };
    assert.match(await hintFor('copy'), /CHAINVISOR_BACKUP_MODE=link/);
    const link = await hintFor('link');
    assert.doesNotMatch(link, /BACKUP_MODE/, 'a link backup refused for space is not told to use link mode');
    assert.match(link, /^free [\d.]+ KiB \(\d+ bytes\) or more in /);
    assert.match(link, /point DAEMON_DATA_BACKUP_DIR at a bigger disk/);
    assert.match(link, /UNSAFE_SKIP_BACKUP=true/);
  });

  test('link mode needs space only for what it copies', async () => {
    // Tables are 421 KB of the data; everything else fits in 200 KiB.
    const statfs = async () => ({ bavail: 50, bsize: 4096 });
    const linked = await backupData({ dataDir: data, backupDir: backups, logger: memoryLogger().logger, mode: 'link', statfs });
    assert.equal(linked?.mode, 'link');
    await assert.rejects(backupData({ dataDir: data, backupDir: backups, logger: memoryLogger().logger, mode: 'copy', statfs }), {
      code: 'CHAINVISOR_BACKUP_NO_SPACE',
    });
  });

  test('a FIFO in the data is refused before anything is written', async () => {
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [path.join(data, 'node.sock')]);
    await assert.rejects(backupData({ dataDir: data, backupDir: backups, logger: memoryLogger().logger, mode: 'copy' }), (error: ChainvisorError) => {
      assert.equal(error.code, 'CHAINVISOR_BACKUP_FAILED');
      assert.equal(error.exitCode, 81);
      assert.match(error.message, /node\.sock is a FIFO, which a backup cannot hold/);
      return true;
    });
    assert.deepEqual(await fs.readdir(backups), []);
  });

  test('an abort stops the backup and removes the partial copy', async () => {
    const controller = new AbortController();
    let calls = 0;
    await assert.rejects(
      backupData({
        dataDir: data,
        backupDir: backups,
        logger: memoryLogger().logger,
        mode: 'copy',
        concurrency: 1,
        signal: controller.signal,
        onProgress: () => {
          if (++calls === 2) controller.abort(new Error('stop asked'));
        },
      }),
      /stop asked/,
    );
    assert.deepEqual(await fs.readdir(backups), []);
  });
});

/**
 * A new folder on another filesystem than `than`: /dev/shm, or the disk's /var/tmp or /tmp when the
 * tests' own temporary folder is in memory (scripts/run-tests.mjs puts it there when it can).
 */
async function folderElsewhere(than: string): Promise<string | undefined> {
  const dev = (await fs.stat(than)).dev;
  for (const base of ['/dev/shm', '/var/tmp', '/tmp']) {
    const dir = await fs.mkdtemp(path.join(base, 'chainvisor-backup-')).catch(() => undefined);
    if (dir === undefined) continue;
    if ((await fs.stat(dir)).dev !== dev) return dir;
    await fs.rm(dir, { recursive: true, force: true });
  }
  return undefined;
}
