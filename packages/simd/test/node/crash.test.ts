/** Durability: `kill -9` never corrupts the store, the next start continues from the last committed height. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { runNodeToExit, simFixture, startNode } from '../support/node-harness.js';

test('restart after kill -9 continues from the last committed height with an intact chain', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const bin = fx.bin('genesis');
  const first = await startNode(t, bin, home);
  await first.waitForHeight(8);
  const seen = await first.height();

  // A second node on the same home is refused: the store is locked.
  const second = await runNodeToExit(t, bin, home);
  assert.equal(second.code, 1);
  assert.match(second.log, /is in use by another process/);

  const killed = await first.kill9();
  assert.equal(killed.signal, 'SIGKILL');

  const restarted = await startNode(t, bin, home);
  const resumed = Number((await restarted.waitForLog(/starting node .*height=(\d+) /))[1]);
  assert.ok(resumed >= seen, `resumed at ${resumed}, had seen ${seen}`);
  await restarted.waitForHeight(resumed + 3);
  let previous: { block_id: unknown } | undefined;
  for (let h = 1; h <= resumed + 3; h++) {
    const { body } = await restarted.http('rpc', `/block?height=${h}`);
    assert.equal(body.result.block.header.height, String(h));
    if (previous !== undefined) assert.deepEqual(body.result.block.header.last_block_id, previous.block_id, `height ${h}`);
    previous = body.result;
  }
  assert.equal((await restarted.stop()).code, 0);
});

test('--halt-height commits that height and stops with exit 0; the next start continues after it', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const bin = fx.bin('genesis');
  const halted = await runNodeToExit(t, bin, home, ['--halt-height', '5']);
  assert.equal(halted.code, 0, halted.log);
  assert.match(halted.log, /halting node: halt per configuration height 5 .*last_height=5/);
  const next = await startNode(t, bin, home);
  await next.waitForLog(/starting node .*height=5 /);
  await next.waitForHeight(6);
  assert.equal((await next.stop()).code, 0);
});
