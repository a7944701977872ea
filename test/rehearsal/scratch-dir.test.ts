/**
 * A rehearsal killed half-way (issue #19, item 6): its scratch folder and its node are removed and
 * stopped at the next start, once the chainvisor that made them is gone — never one whose maker lives,
 * never a process whose pid was reused (its start time differs).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { newScratchPath, recordScratchNode, removeLeftoverRehearsals, scratchOwner } from '../../src/rehearsal/scratch-dir.js';
import { silentLogger } from '../../src/shared/log.js';
import { isProcessAliveNow } from '../../src/shared/proc/index.js';

const exitedPid = async () => {
  const child = spawn('true');
  await new Promise((r) => child.on('exit', r));
  return child.pid as number;
};

test('left-over scratch homes: removed with their node when their maker is gone; kept while it lives', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-scratch-dir-'));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  const deadMaker = await exitedPid();
  const dead = path.join(dir, `.chainvisor-rehearsal-${deadMaker}-0123abcd`);
  const node = spawn('sleep', ['60']);
  t.after(() => node.kill('SIGKILL'));
  await fs.mkdir(path.join(dead, 'data'), { recursive: true });
  await recordScratchNode(dead, node.pid as number);
  const liveMaker = spawn('sleep', ['60']);
  t.after(() => liveMaker.kill('SIGKILL'));
  const kept = path.join(dir, `.chainvisor-rehearsal-${liveMaker.pid}-0123abcd`);
  await fs.mkdir(kept);
  const mine = newScratchPath(dir);
  await fs.mkdir(mine);
  await fs.mkdir(path.join(dir, 'data-backup-2026-1-1'));
  // A record whose start time is not the process's: a reused pid is never signalled.
  const reused = path.join(dir, `.chainvisor-rehearsal-${deadMaker}-99999999`);
  const bystander = spawn('sleep', ['60']);
  t.after(() => bystander.kill('SIGKILL'));
  await fs.mkdir(reused);
  await fs.writeFile(path.join(reused, 'node.json'), JSON.stringify({ pid: bystander.pid, start: '1' }));

  const removed = await removeLeftoverRehearsals({ rehearsalDir: dir, logger: silentLogger() });
  assert.deepEqual(removed.sort(), [dead, reused].sort());
  await new Promise((r) => setTimeout(r, 100));
  assert.ok(!isProcessAliveNow(node.pid as number), 'the scratch node was stopped');
  assert.ok(isProcessAliveNow(bystander.pid as number), 'a reused pid is left alone');
  assert.deepEqual((await fs.readdir(dir)).sort(), [path.basename(kept), path.basename(mine), 'data-backup-2026-1-1'].sort());
  assert.equal(scratchOwner(path.basename(mine)), process.pid);
  assert.equal(scratchOwner('data-backup-2026-1-1'), undefined);
});
