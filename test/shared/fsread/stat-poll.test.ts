/**
 * The stat-level poll behind the upgrade-info.json safety net and the manual-upgrade file: a call for
 * every change an operator or a node can make (created, written, replaced, removed), none while the file
 * stays as it is, none after close.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { pollStat } from '../../../src/shared/fsread/index.js';
import { waitFor } from '../../support/home.js';

describe('pollStat', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-stat-poll-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  test('calls back when the file appears, changes, is replaced or goes, and never while it stays as it is', async () => {
    const file = path.join(dir, 'upgrade-info.json');
    let changes = 0;
    const poll = pollStat(file, 20, () => changes++);
    /** Runs `step`, then waits for at least one more call (a write may show as two: created, then filled). */
    const seen = async (what: string, step: () => Promise<void>) => {
      const before = changes;
      await step();
      await waitFor(() => changes > before, what);
    };
    const quiet = async (what: string) => {
      await sleep(150);
      const before = changes;
      await sleep(200);
      assert.equal(changes, before, what);
    };
    try {
      await waitFor(() => changes === 1, 'the first poll to report the missing file');
      await quiet('a missing file that stays missing is reported once');
      await seen('the file to be seen', () => fs.writeFile(file, '{"name":"v2"}'));
      await quiet('no call while the file stays as it is');
      await seen('the change to be seen', () => fs.appendFile(file, ' '));
      await seen('the file replaced by another of the same size and times to be seen', async () => {
        const { atime, mtime } = await fs.stat(file);
        await fs.writeFile(path.join(dir, 'other'), '{"name":"v3"} ');
        await fs.utimes(path.join(dir, 'other'), atime, mtime);
        await fs.rename(path.join(dir, 'other'), file);
      });
      await seen('the removal to be seen', () => fs.rm(file));
      await quiet('a file that stays gone is reported once');
    } finally {
      poll.close();
    }
    const before = changes;
    await fs.writeFile(file, 'again');
    await sleep(100);
    assert.equal(changes, before, 'nothing after close');
  });
});
