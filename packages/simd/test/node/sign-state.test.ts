/**
 * The validator's signing state (issue #28), as CometBFT's FilePV keeps it: `init` writes height "0";
 * every vote is written to data/priv_validator_state.json before it counts; a step behind the file is
 * refused with CometBFT's texts — the protection a state file put back from a backup would remove.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { FilePV, signStatePath } from '../../src/node/sign-state.js';
import { simFixture, startNode } from '../support/node-harness.js';

interface StateFile {
  height: string;
  round: number;
  step: number;
  signature?: string;
  signbytes?: string;
}

async function readState(home: string): Promise<StateFile> {
  return JSON.parse(await fs.readFile(signStatePath(home), 'utf8')) as StateFile;
}

test('FilePV refuses a height, round or step behind the file with CometBFT texts, and signs the same step twice alike', async (t) => {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'filepv-'));
  t.after(() => fs.rm(home, { recursive: true, force: true }));
  const pv = await FilePV.load(home, 'sim-1');
  assert.deepEqual(await readState(home), { height: '0', round: 0, step: 0 });

  const sig = await pv.signVote(10, 2, 2, 'AA');
  const written = await readState(home);
  assert.equal(written.height, '10');
  assert.equal(written.round, 2);
  assert.equal(written.step, 2);
  assert.equal(written.signature, sig);
  assert.match(written.signbytes ?? '', /^[0-9a-f]{64}$/);
  assert.equal(await pv.signVote(10, 2, 2, 'AA'), sig, 'the same vote again: the same signature');
  await assert.rejects(pv.signVote(10, 2, 2, 'BB'), /conflicting data/);
  await assert.rejects(pv.signVote(9, 5, 3, 'AA'), { message: 'height regression. Got 9, last height 10' });
  await assert.rejects(pv.signVote(10, 1, 3, 'AA'), { message: 'round regression at height 10. Got 1, last round 2' });
  await assert.rejects(pv.signVote(10, 2, 1, 'AA'), { message: 'step regression at height 10 round 2. Got 1, last step 2' });
  await pv.signVote(10, 2, 3, 'AA');
  assert.equal((await readState(home)).step, 3);

  // A new signer reads where the last one stopped.
  const again = await FilePV.load(home, 'sim-1');
  await assert.rejects(again.signVote(10, 2, 2, 'AA'), /step regression/);
});

test('the node writes its signing state before each vote, and a state file ahead of the data keeps it from voting', async (t) => {
  const fx = await simFixture(t, { versions: ['genesis'] });
  const home = await fx.initHome();
  assert.deepEqual(await readState(home), { height: '0', round: 0, step: 0 }, 'init writes a new home state');
  const node = await startNode(t, fx.bin('genesis'), home);
  await node.waitForHeight(4);
  await node.stop();
  const after = await readState(home);
  const height = Number(after.height);
  assert.ok(height >= 4, `signed up to ${after.height}`);
  assert.equal(after.step, 3, 'the precommit is the last step of a height');
  assert.ok((after.signature ?? '').length > 0);

  // The signing state far ahead (a backup's data restored under a newer state): the node refuses to vote.
  await fs.writeFile(signStatePath(home), JSON.stringify({ ...after, height: String(height + 1000) }));
  const behind = await startNode(t, fx.bin('genesis'), home);
  await behind.waitForLog(new RegExp(`failed signing vote.*height regression\\. Got ${height + 1}, last height ${height + 1000}`));
  assert.equal(await behind.height(), height, 'no block commits without its only validator');
  await behind.stop();
});
