/**
 * A restore killed at each of its steps (SIGKILL: no clean-up of its own) leaves the original data/ or
 * the restored one, never a mix; the next `chainvisor restore` (or `run`) undoes a restore killed before
 * its copy was whole and recorded so, and finishes one killed after. The restore is run in a child process that
 * kills itself at the step (its test hook `onStep`); what follows is the real command.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { snapshot, withoutInodes } from '../../support/data-tree.js';
import { makeHome, type TestHome } from '../../support/home.js';
import { upgradedHome } from '../../support/upgraded-home.js';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../src');

const childScript = `
import { restoreSigning } from ${JSON.stringify(path.join(dist, 'guard/index.js'))};
import { planRestore, restoreData } from ${JSON.stringify(path.join(dist, 'home/backup/index.js'))};
import { layoutFor } from ${JSON.stringify(path.join(dist, 'home/layout/index.js'))};
import { createLogger } from ${JSON.stringify(path.join(dist, 'shared/log.js'))};
const [home, at] = process.argv.slice(2);
const layout = layoutFor({ home, name: 'simd' });
const signing = restoreSigning(layout);
const plan = await planRestore({ layout, backupDir: home, keepBinary: false, signing });
const kill = () => process.kill(process.pid, 'SIGKILL');
await restoreData({
  plan, layout, signing, logger: createLogger({ disabled: true }), concurrency: 1,
  onProgress: (done) => { if (at === 'mid-copy' && done > 0) kill(); },
  onStep: (step) => { if (step === at) kill(); },
});
`;

const steps = ['mid-copy', 'copied', 'set-aside', 'restored', 'current-switched'] as const;
/** Killed before its journal says the copy is whole: undone. */
const undone = new Set<string>(['mid-copy', 'copied']);

describe('a restore killed at each step', () => {
  let t: TestHome;
  beforeEach(async () => {
    t = await makeHome();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  for (const step of steps) {
    for (const next of step === 'set-aside' ? (['restore', 'run'] as const) : (['restore'] as const)) {
      test(`killed at ${step}: the next ${next} ${undone.has(step) ? 'undoes' : 'finishes'} it`, async () => {
        const { backup } = await upgradedHome(t);
        const data = path.join(t.home, 'data');
        const original = withoutInodes(await snapshot(data));
        const fromBackup = withoutInodes(await snapshot(backup));
        const script = path.join(t.root, 'kill-restore.mjs');
        await fs.writeFile(script, childScript);
        const child = spawnSync(process.execPath, [script, t.home, step], { encoding: 'utf8' });
        assert.equal(child.signal, 'SIGKILL', `the restore was killed at ${step}: ${child.stderr}`);

        // Right after the kill: the original data/, the restored one, or (between the renames) none — never a mix.
        const now = await snapshot(data).catch(() => undefined);
        if (now !== undefined) {
          const seen = withoutInodes(now);
          delete seen['priv_validator_state.json'];
          const [a, b] = [{ ...original }, { ...fromBackup }];
          delete a['priv_validator_state.json'];
          delete b['priv_validator_state.json'];
          assert.ok(JSON.stringify(seen) === JSON.stringify(a) || JSON.stringify(seen) === JSON.stringify(b), 'data/ is whole');
        } else assert.equal(step, 'set-aside');

        if (next === 'restore') {
          // A dry run only says what the restore will do first (issue #43: it writes nothing).
          const journal = path.join(t.home, 'cosmovisor', '.chainvisor', 'restore-journal.json');
          const dry = await t.cli(['restore', '--dry-run']);
          assert.equal(dry.exitCode, 0, dry.stderr);
          assert.match(
            dry.stdout,
            undone.has(step) ? /interrupted restore of .* is pending: the restore first undoes it/ : /is pending: the restore \(or run\) first finishes it/,
          );
          await fs.access(journal);
          // The restore itself finishes or undoes it before it asks (no terminal, no --yes: 64).
          const r = await t.cli(['restore']);
          assert.equal(r.exitCode, 64, r.stderr);
          assert.match(r.stderr, undone.has(step) ? /undid a restore interrupted while copying/ : /finished a restore interrupted after its copy was whole/);
        } else {
          const r = await t.cli(['run', 'start'], { CHAINVISOR_SIGN_GUARD: 'off' });
          assert.match(r.stderr, /finished a restore interrupted/);
        }

        const names = await fs.readdir(t.home);
        assert.deepEqual(
          names.filter((n) => n.includes('.restoring-')),
          [],
          'no work folder is left',
        );
        await assert.rejects(fs.stat(path.join(t.home, 'cosmovisor', '.chainvisor', 'restore-journal.json')), { code: 'ENOENT' });
        const after = withoutInodes(await snapshot(data));
        if (undone.has(step)) {
          assert.deepEqual(after, original, 'undone: the original data');
          assert.deepEqual(
            names.filter((n) => n.startsWith('data.replaced-')),
            [],
          );
          assert.equal(await t.current(), 'upgrades/v2');
        } else {
          const state = after['priv_validator_state.json'];
          delete after['priv_validator_state.json'];
          const expected = { ...fromBackup };
          delete expected['priv_validator_state.json'];
          assert.deepEqual(after, expected, 'finished: the backup restored');
          assert.ok(state);
          assert.equal(JSON.parse(await fs.readFile(path.join(data, 'priv_validator_state.json'), 'utf8')).height, '140', 'the newest signing state');
          const replaced = names.filter((n) => n.startsWith('data.replaced-'));
          assert.equal(replaced.length, 1);
          assert.deepEqual(withoutInodes(await snapshot(path.join(t.home, replaced[0] as string))), original);
          if (next === 'restore') assert.equal(await t.current(), 'genesis');
          const status = JSON.parse((await t.cliOk(['status', '--output', 'json'])).stdout);
          assert.equal(status.lastRestore?.backup, backup);
        }
      });
    }
  }
});
