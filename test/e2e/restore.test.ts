/**
 * Rolling back without a double-sign (issue #28), on the simulated chain under `chainvisor run`: an
 * upgrade to v2 with a `link` backup, v2 signs on past the upgrade height; a backup put back by hand
 * (its older signing state with it) is refused by the sign guard (84) and the node not started; put
 * back with `chainvisor restore` — a copy with inodes of its own, the backup unchanged, `data.replaced-*`
 * kept, the plan file and `current` back, the newest signing state kept — the node starts again, the
 * upgrade is applied again, and the validator never signs a step behind what it signed (the peers carry
 * the chain until it passes that height).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

import { proposeUpgrade, waitFor } from '@chainvisor/simd/testing';

import { chainvisorSim, heightOf } from '../support/chainvisor-sim.js';
import { snapshot } from '../support/data-tree.js';

interface SignState {
  height: string;
  round: number;
  step: number;
}

test('restore after an upgrade: the guard refuses a backup put back by hand (84); chainvisor restore keeps the newest signing state and the node runs on', async (t) => {
  const sim = await chainvisorSim(t, ['genesis', 'v2'], { UNSAFE_SKIP_BACKUP: 'false', CHAINVISOR_BACKUP_MODE: 'link' }, [
    '--voting-period',
    '500ms',
    '--deposit-period',
    '500ms',
    '--auto-vote',
  ]);
  const data = path.join(sim.home, 'data');
  const signState = async (dir = data): Promise<SignState> => JSON.parse(await fs.readFile(path.join(dir, 'priv_validator_state.json'), 'utf8')) as SignState;
  const peers = ['--sim-peers-power', '9000000'];
  assert.equal((await sim.cv(['add-upgrade', 'v2', sim.bin('v2')])).code, 0);

  // The upgrade, then v2 signs on for a while.
  const first = sim.run(peers);
  const genesisNode = await first.nodeOf('genesis');
  await waitFor(async () => (await heightOf(genesisNode)) >= 2, 'genesis blocks');
  const upgradeHeight = (await heightOf(genesisNode)) + 100;
  await proposeUpgrade(sim.bin('genesis'), sim.home, { name: 'v2', height: upgradeHeight, extra: ['--no-validate'] });
  const v2 = await first.nodeOf('v2');
  await waitFor(async () => (await heightOf(v2).catch(() => 0)) >= upgradeHeight + 20, `v2 past ${upgradeHeight + 20}`, 60_000);
  assert.equal(await first.stop(), 0);
  const signedByV2 = await signState();
  assert.ok(Number(signedByV2.height) >= upgradeHeight + 20, `v2 signed up to ${signedByV2.height}`);

  const made = JSON.parse(await fs.readFile(path.join(sim.home, 'cosmovisor', '.chainvisor', 'backups.json'), 'utf8'));
  assert.equal(made.length, 1);
  assert.equal(made[0].current, 'genesis', 'the backup records the binary of its time');
  const backup = made[0].path as string;
  const backupBefore = await snapshot(backup);
  const backupState = await signState(backup);
  assert.ok(Number(backupState.height) <= upgradeHeight, 'the backup was made at the halt: it signed up to the upgrade height');

  // By hand, step 4 of the old instructions missed: the backup's signing state comes back with it.
  await fs.rename(data, `${data}.damaged`);
  execFileSync('cp', ['-a', backup, data]);
  const refused = sim.run(peers);
  assert.equal(await refused.exit, 84, refused.output());
  assert.match(refused.output(), /CHAINVISOR_SIGN_STATE_BEHIND/);
  assert.match(refused.output(), new RegExp(`at height ${backupState.height} round \\d+ step \\d, behind height ${signedByV2.height} `));
  assert.doesNotMatch(refused.output(), /starting node/, 'no node was started');

  // The damaged data back, then the restore done by chainvisor.
  await fs.rm(data, { recursive: true });
  await fs.rename(`${data}.damaged`, data);
  const dry = await sim.cv(['restore', '--dry-run', '--output', 'json']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.equal(JSON.parse(dry.stdout).plan.backup, backup);
  const restore = await sim.cv(['restore', '--yes']);
  assert.equal(restore.code, 0, restore.stderr);
  assert.match(restore.stdout, new RegExp(`replaced: height ${signedByV2.height}, backup: height ${backupState.height}`));

  assert.deepEqual(await snapshot(backup), backupBefore, 'the backup is unchanged');
  const restored = await snapshot(data);
  for (const [rel, node] of restored) {
    if (node.kind === 'file') assert.notEqual(node.ino, backupBefore.get(rel)?.ino, `${rel} has an inode of its own (the backup's tables are links)`);
  }
  const replaced = (await fs.readdir(sim.home)).filter((n) => n.startsWith('data.replaced-'));
  assert.equal(replaced.length, 1);
  assert.deepEqual(JSON.parse(await fs.readFile(path.join(data, 'upgrade-info.json'), 'utf8')).name, 'v2', 'the plan file is back');
  assert.equal(await fs.readlink(path.join(sim.home, 'cosmovisor', 'current')), 'genesis');
  assert.deepEqual(await signState(), signedByV2, 'the signing state never went back');
  assert.deepEqual(await signState(path.join(sim.home, replaced[0] as string)), signedByV2, 'the replaced data is kept whole');

  // chainvisor applies v2 again at start-up; v2 replays from the backup's height without signing until it passes its last vote.
  const again = sim.run(peers);
  const v2again = await again.nodeOf('v2');
  const passed = Number(signedByV2.height) + 3;
  await waitFor(async () => (await heightOf(v2again).catch(() => 0)) >= passed, `v2 past ${passed}`, 60_000);
  assert.match(again.output(), /failed signing vote .*height regression/);
  await waitFor(async () => BigInt((await signState()).height) > BigInt(signedByV2.height), 'the validator signing again past its last vote', 30_000);
  assert.equal(await again.stop(), 0);
  const status = JSON.parse((await sim.cv(['status', '--output', 'json'])).stdout);
  assert.equal(status.lastRestore.backup, backup);
});
