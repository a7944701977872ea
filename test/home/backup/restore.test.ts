/**
 * `chainvisor restore` (issue #28) through the real command, on a home with a node-shaped data folder and
 * a backup recorded as chainvisor records them: the backup copied back with inodes of its own and left
 * unchanged, the data it replaced kept beside, the signing state never moved back, `current` back to the
 * backup's binary; refused while `run` holds the home, without a terminal or --yes, with nothing to
 * restore or no space; --dry-run; the event and the status.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { restoreSigning } from '../../../src/guard/index.js';
import { planRestore, restoreData } from '../../../src/home/backup/index.js';
import { layoutFor } from '../../../src/home/layout/index.js';
import type { ChainvisorError } from '../../../src/shared/errors/index.js';
import { snapshot, withoutInodes } from '../../support/data-tree.js';
import { memoryLogger } from '../../support/download-kit.js';
import { makeHome, type TestHome, waitFor } from '../../support/home.js';
import { tryMountTmpfs } from '../../support/tmpfs.js';
import { stateJson, upgradedHome } from '../../support/upgraded-home.js';
import { startWebhookReceiver } from '../../support/webhook-receiver.js';

describe('chainvisor restore', () => {
  let t: TestHome;
  beforeEach(async () => {
    t = await makeHome();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  const data = () => path.join(t.home, 'data');
  const replacedFolders = async () => (await fs.readdir(t.home)).filter((n) => n.startsWith('data.replaced-'));

  test('restores the newest backup: a copy with its own inodes, the backup unchanged, data.replaced-* kept, the newest signing state, current back', async () => {
    const { backup } = await upgradedHome(t);
    const receiver = await startWebhookReceiver();
    try {
      const backupBefore = await snapshot(backup);
      const liveBefore = await snapshot(data());
      const r = await t.cli(['restore', '--yes'], { CHAINVISOR_WEBHOOK_URL: receiver.url });
      assert.equal(r.exitCode, 0, r.stderr);
      assert.match(r.stdout, /signing state {2}keep the replaced data's: replaced height 140 round 1 step 2, backup height 99 round 0 step 3/);
      assert.match(r.stdout, /current {8}upgrades\/v2 → genesis/);
      assert.match(r.stdout, /kept the replaced data's priv_validator_state\.json \(replaced: height 140, backup: height 99\)/);

      assert.deepEqual(await snapshot(backup), backupBefore, 'the backup is unchanged, inodes included');
      const restored = await snapshot(data());
      const expected = withoutInodes(backupBefore);
      const got = withoutInodes(restored);
      delete expected['priv_validator_state.json'];
      const keptState = got['priv_validator_state.json'];
      delete got['priv_validator_state.json'];
      assert.deepEqual(got, expected, 'the restored data is the backup');
      for (const [rel, node] of restored) {
        if (node.kind === 'file') assert.notEqual(node.ino, backupBefore.get(rel)?.ino, `${rel} has an inode of its own`);
      }
      assert.equal(JSON.parse(await fs.readFile(path.join(data(), 'priv_validator_state.json'), 'utf8')).height, '140');
      assert.equal(keptState?.mode, 0o600);
      assert.deepEqual(JSON.parse(await fs.readFile(path.join(data(), 'upgrade-info.json'), 'utf8')), { name: 'v2', height: 100 }, 'the plan file is back');
      assert.equal(await t.current(), 'genesis');

      const [replaced] = await replacedFolders();
      assert.ok(replaced, 'the replaced data is kept');
      assert.deepEqual(withoutInodes(await snapshot(path.join(t.home, replaced))), withoutInodes(liveBefore));
      assert.deepEqual(
        (await fs.readdir(t.home)).filter((n) => n.includes('restoring')),
        [],
        'no work folder left',
      );

      // The sign guard remembers the kept state; status shows the restore; the webhook went out.
      const signRecord = JSON.parse(await fs.readFile(path.join(t.home, 'cosmovisor', '.chainvisor', 'sign-state.json'), 'utf8'));
      assert.equal(signRecord.chains['restore-1'].height, '140');
      const status = JSON.parse((await t.cliOk(['status', '--output', 'json'])).stdout);
      assert.equal(status.lastRestore.backup, backup);
      assert.equal(status.lastRestore.signing.kept, 'replaced');
      assert.equal(status.lastRestore.signing.backupHeight, '99');
      assert.equal(status.lastRestore.current.to, 'genesis');
      assert.match((await t.cliOk(['status'])).stdout, /last restore .*signing state kept: replaced, replaced height 140, backup height 99/);
      await waitFor(() => receiver.delivered().some((d) => d.body.event === 'data-restored'), 'the data-restored webhook');
    } finally {
      await receiver.close();
    }
  });

  test('--dry-run prints the plan (text and JSON) and changes nothing', async () => {
    await upgradedHome(t);
    // Everything but chainvisor's own runtime folder (the home lock's record comes and goes).
    const home = async () => [...(await snapshot(t.home))].filter(([rel]) => !rel.startsWith(path.join('cosmovisor', '.chainvisor')) && rel !== 'cosmovisor');
    const before = await home();
    const text = await t.cli(['restore', '--dry-run']);
    assert.equal(text.exitCode, 0, text.stderr);
    assert.match(text.stdout, /^restore plan:/);
    const json = await t.cli(['restore', '--dry-run', '--output', 'json']);
    assert.equal(json.exitCode, 0, json.stderr);
    const doc = JSON.parse(json.stdout);
    assert.equal(doc.dryRun, true);
    assert.equal(doc.plan.signing.kept, 'replaced');
    assert.deepEqual(doc.plan.signing.replaced, { height: '140', round: 1, step: 2 });
    assert.deepEqual(doc.plan.signing.backup, { height: '99', round: 0, step: 3 });
    assert.equal(doc.plan.current.to, 'genesis');
    assert.deepEqual(await home(), before);
  });

  test('no terminal and no --yes: refused with 64, nothing changed; --keep-binary leaves current; an older record reads current from the plan', async () => {
    await upgradedHome(t, { recordCurrent: false });
    const refused = await t.cli(['restore']);
    assert.equal(refused.exitCode, 64, refused.stderr);
    assert.match(refused.stderr, /code: CHAINVISOR_RESTORE_UNCONFIRMED/);
    assert.deepEqual(await replacedFolders(), []);

    const planned = JSON.parse((await t.cliOk(['restore', '--dry-run', '--output', 'json'])).stdout);
    assert.equal(planned.plan.current.source, 'upgrade-info');
    assert.equal(planned.plan.current.to, 'genesis', 'the binary before v2 (height 100): genesis');

    const kept = await t.cli(['restore', '--yes', '--keep-binary']);
    assert.equal(kept.exitCode, 0, kept.stderr);
    assert.equal(await t.current(), 'upgrades/v2');
  });

  test('refused with 82 while run holds the home', async () => {
    await upgradedHome(t);
    await t.cliOk(['add-upgrade', 'v2', await t.fakeNode({ label: 'v2' }), '--force']);
    const run = t.spawn(['run', 'start'], { CHAINVISOR_SIGN_GUARD: 'off' });
    try {
      await waitFor(async () => (await t.journalLines()).some((l) => l.startsWith('v2 start')), 'the node started');
      const r = await t.cli(['restore', '--yes']);
      assert.equal(r.exitCode, 82, r.stderr);
      assert.match(r.stderr, /code: CHAINVISOR_HOME_LOCKED/);
      assert.deepEqual(await replacedFolders(), []);
    } finally {
      run.kill('SIGTERM');
      await run;
    }
  });

  test('nothing to restore: 79; an unreadable signing state: 84; the backup ahead: its state is kept', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const none = await t.cli(['restore', '--yes']);
    assert.equal(none.exitCode, 79, none.stderr);
    assert.match(none.stderr, /code: CHAINVISOR_RESTORE_NOTHING/);
    const missing = await t.cli(['restore', '--yes', '--backup', '/nonexistent/data-backup-x']);
    assert.equal(missing.exitCode, 79);
    await fs.mkdir(path.join(data(), 'snap'), { recursive: true });
    const itself = await t.cli(['restore', '--yes', '--backup', path.join(data(), 'snap')]);
    assert.equal(itself.exitCode, 79, itself.stderr);
    assert.match(itself.stderr, /is the data folder itself, or inside it/);

    await fs.rm(t.home, { recursive: true });
    await fs.mkdir(t.home);
    await t.journalLines();
    const { backup } = await upgradedHome(t);
    await fs.writeFile(path.join(data(), 'priv_validator_state.json'), '{"height": 1');
    const unreadable = await t.cli(['restore', '--yes']);
    assert.equal(unreadable.exitCode, 84, unreadable.stderr);
    assert.match(unreadable.stderr, /code: CHAINVISOR_SIGN_STATE_UNREADABLE/);
    assert.deepEqual(await replacedFolders(), []);

    await fs.writeFile(path.join(data(), 'priv_validator_state.json'), stateJson(50));
    await fs.writeFile(path.join(backup, 'priv_validator_state.json'), stateJson(99, 2, 3));
    const r = await t.cli(['restore', '--yes', '--backup', path.basename(backup)]);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(JSON.parse(await fs.readFile(path.join(data(), 'priv_validator_state.json'), 'utf8')).height, '99');
  });

  test('a damaged restore journal: restore and run stop with its code and what to do, nothing finished or undone on a guess', async () => {
    await upgradedHome(t);
    const journal = path.join(t.home, 'cosmovisor', '.chainvisor', 'restore-journal.json');
    const before = await snapshot(data());
    for (const damaged of ['{"phase": "swapp', '{"phase": "swapping"}']) {
      await fs.writeFile(journal, damaged);
      for (const args of [
        ['restore', '--yes'],
        ['run', 'start'],
      ]) {
        const r = await t.cli(args);
        assert.equal(r.exitCode, 79, r.stderr);
        assert.match(r.stderr, /code: CHAINVISOR_RESTORE_FAILED/);
        assert.match(r.stderr, /restore-journal\.json records an interrupted restore but cannot be read/);
        assert.match(r.stderr, /hint: look beside .*data\.restoring-\* is the copy/);
        assert.doesNotMatch(r.stderr, /unexpected error|at .*\.js:\d+/);
      }
    }
    assert.deepEqual(await snapshot(data()), before);
    assert.equal(await fs.readFile(journal, 'utf8'), '{"phase": "swapping"}');
  });

  test('the free space is checked before a byte is written (any host: the statfs of a full disk)', async () => {
    await upgradedHome(t);
    const layout = layoutFor({ home: t.home, name: 'simd' });
    const signing = restoreSigning(layout);
    const plan = await planRestore({ layout, backupDir: t.home, keepBinary: false, signing });
    await assert.rejects(
      restoreData({ plan, layout, signing, logger: memoryLogger().logger, statfs: async () => ({ bavail: 3, bsize: 4096 }) }),
      (error: ChainvisorError) => error.code === 'CHAINVISOR_RESTORE_NO_SPACE' && error.exitCode === 81 && /12 KiB|12\.0 KiB|12288/.test(error.message),
    );
    assert.deepEqual(
      (await fs.readdir(t.home)).filter((n) => n.startsWith('data.')),
      [],
    );
    await assert.rejects(fs.stat(path.join(layout.stateDir, 'restore-journal.json')), { code: 'ENOENT' });
  });

  test('not enough space beside data/: 81, both sizes named, nothing written', async (ctx) => {
    const small = path.join(t.root, 'small');
    await fs.mkdir(small);
    if (!tryMountTmpfs(small, '2m')) {
      ctx.skip('cannot mount a small tmpfs here (needs root and a host that allows mounts)');
      return;
    }
    try {
      const home = path.join(small, 'home');
      await fs.mkdir(home);
      t.env.DAEMON_HOME = home;
      const { backup } = await upgradedHomeAt(t, home);
      // Backup elsewhere, 3 MiB of data: it cannot fit on the 2 MiB filesystem of data/.
      const outside = path.join(t.root, 'backup');
      await fs.rename(backup, outside).catch(async () => {
        execFileSync('cp', ['-a', backup, outside]);
        await fs.rm(backup, { recursive: true });
      });
      await fs.writeFile(path.join(outside, 'big.sst'), Buffer.alloc(3 * 1024 * 1024, 1));
      const r = await t.cli(['restore', '--yes', '--backup', outside]);
      assert.equal(r.exitCode, 81, r.stderr);
      assert.match(r.stderr, /code: CHAINVISOR_RESTORE_NO_SPACE/);
      assert.match(r.stderr, /needs \d[\d.]* [KM]iB.* is available/);
      assert.deepEqual(
        (await fs.readdir(home)).filter((n) => n.startsWith('data.')),
        [],
      );
    } finally {
      execFileSync('umount', ['-l', small]);
    }
  });
});

/** upgradedHome for a home at another path (the tmpfs test). */
async function upgradedHomeAt(t: TestHome, home: string): Promise<{ backup: string }> {
  const saved = t.home;
  (t as { home: string }).home = home;
  try {
    return await upgradedHome(t);
  } finally {
    (t as { home: string }).home = saved;
  }
}
