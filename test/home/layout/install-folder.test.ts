/** The final rename, and what happens to a folder already in the way. */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

import { installFolder } from '../../../src/home/layout/index.js';
import { listTree, memoryLogger, tempDir } from '../../support/download-kit.js';

async function staged(dir: string): Promise<string> {
  const tree = path.join(dir, '.download-1-ab-v2', 'tree');
  await fs.mkdir(path.join(tree, 'bin'), { recursive: true });
  await fs.writeFile(path.join(tree, 'bin', 'simd'), '#!/bin/sh\n', { mode: 0o755 });
  return tree;
}

test('the folder appears at upgrades/<dir> in one rename', async (t) => {
  const dir = await tempDir(t);
  const tree = await staged(dir);
  const target = path.join(dir, 'upgrades', 'v2');
  const { logger } = memoryLogger();
  const result = await installFolder({ staged: tree, target, logger });
  assert.equal(result.replaced, undefined);
  assert.deepEqual(await listTree(target), ['bin/', 'bin/simd']);
  await assert.rejects(fs.lstat(tree), { code: 'ENOENT' });
});

test('an empty leftover folder (a failed earlier attempt) is removed', async (t) => {
  const dir = await tempDir(t);
  const tree = await staged(dir);
  const target = path.join(dir, 'upgrades', 'v2');
  await fs.mkdir(path.join(target, 'bin'), { recursive: true });
  const log = memoryLogger();
  const result = await installFolder({ staged: tree, target, logger: log.logger });
  assert.equal(result.replaced, undefined);
  assert.deepEqual(await listTree(target), ['bin/', 'bin/simd']);
  assert.match(log.text(), /removed an empty upgrade folder/);
});

test("a leftover folder with an operator's files is moved aside, never deleted, with a warning", async (t) => {
  const dir = await tempDir(t);
  const tree = await staged(dir);
  const target = path.join(dir, 'upgrades', 'v2');
  await fs.mkdir(target, { recursive: true });
  await fs.writeFile(path.join(target, 'notes.txt'), 'mine\n');
  const log = memoryLogger();
  const result = await installFolder({ staged: tree, target, logger: log.logger, now: () => new Date('2025-03-04T05:06:07.890Z') });
  assert.equal(result.replaced, `${target}.replaced-20250304T050607Z`);
  assert.equal(await fs.readFile(path.join(`${target}.replaced-20250304T050607Z`, 'notes.txt'), 'utf8'), 'mine\n');
  assert.deepEqual(await listTree(target), ['bin/', 'bin/simd']);
  const warning = log.lines().find((l) => l.level === 40);
  assert.ok(warning, 'a warning is logged');
  assert.equal(warning.movedTo, result.replaced);
});
