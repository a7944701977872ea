/**
 * Versions built with handler options, against real processes on homes halted for "v2" by
 * in-place-testnet: a handler that panics on some state (a governance proposal) prints Go's `panic:`
 * and exits 2 at its first block whatever the halt mode, committing nothing, and runs on a chain
 * without that state; `always` panics anywhere; a slow handler holds the first block while the node
 * answers queries at the old height.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';

import { bech32Encode } from '../src/util/bech32.js';
import { cli, proposeUpgrade, readUpgradeInfoFile, type SimFixture, simFixture, spawnNode, startNode } from './support/node-harness.js';

const operator = bech32Encode('cosmosvaloper', Buffer.alloc(20, 0x42));

/**
 * A home halted for "v2" at the next block after its last: blocks of `genesis` (with a governance
 * proposal first when asked), then in-place-testnet triggering v2. Returns the height v2 runs at.
 */
async function haltedForV2(t: TestContext, fx: SimFixture, options: { proposal: boolean }): Promise<{ home: string; height: number }> {
  const home = await fx.initHome();
  const node = await startNode(t, fx.bin('genesis'), home);
  await node.waitForHeight(2);
  // A proposal for an upgrade far ahead: it only has to be in the state.
  if (options.proposal) await proposeUpgrade(fx.bin('genesis'), home, { name: 'later', height: (await node.height()) + 100_000, extra: ['--no-validate'] });
  assert.equal((await node.stop()).code, 0);
  const testnet = spawnNode(t, fx.bin('genesis'), home, ['rehearsal-1', operator, '--trigger-testnet-upgrade', 'v2', '--skip-confirmation'], {}, [
    'in-place-testnet',
  ]);
  assert.equal((await testnet.exit).code, 2, testnet.log());
  return { home, height: (JSON.parse(await readUpgradeInfoFile(home)) as { height: number }).height };
}

test('a handler that panics on a state prints panic: and exits 2 at its first block, whatever the halt mode; it runs where that state is missing', async (t) => {
  const fx = await simFixture(t, {
    versions: ['genesis', 'v2'],
    variants: { 'v2-panics-on-proposals': { from: 'v2', handlerPanic: 'state:s/gov/p/' }, 'v2-always-panics': { from: 'v2', handlerPanic: 'always' } },
  });
  const withProposal = await haltedForV2(t, fx, { proposal: true });
  for (const mode of ['exit', 'stay']) {
    const run = spawnNode(t, fx.bin('v2-panics-on-proposals'), withProposal.home, ['--halt-mode', mode], {});
    assert.equal((await run.exit).code, 2, run.log());
    assert.match(run.log(), /\npanic: upgrade "v2": cannot migrate the state under "s\/gov\/p\/" \(1 entries\)\n\ngoroutine 1 \[running\]:\n/);
    assert.match(run.log(), new RegExp(`applying upgrade "v2" at height: ${withProposal.height - 1}`));
  }
  // Nothing of the block was committed: the plain v2 applies the upgrade at that height.
  const v2 = await startNode(t, fx.bin('v2'), withProposal.home);
  await v2.waitForHeight(withProposal.height + 1);
  const applied = JSON.parse((await cli(fx.bin('v2'), ['query', 'upgrade', 'applied', 'v2', '--home', withProposal.home])).stdout);
  assert.equal(applied.header.height, String(withProposal.height));
  assert.equal((await v2.stop()).code, 0);

  const fresh = await haltedForV2(t, fx, { proposal: false });
  const always = spawnNode(t, fx.bin('v2-always-panics'), fresh.home, [], {});
  assert.equal((await always.exit).code, 2);
  assert.match(always.log(), /\npanic: upgrade handler "v2" of this build always panics\n/);
  const runs = await startNode(t, fx.bin('v2-panics-on-proposals'), fresh.home);
  await runs.waitForHeight(fresh.height + 1);
  assert.match(runs.log(), /migrating module bank from version 4 to version 5/);
  assert.equal((await runs.stop()).code, 0);
});

test('a slow handler holds the first block for its delay while the node answers at the old height', async (t) => {
  const fx = await simFixture(t, { versions: ['genesis'], variants: { 'v2-slow': { from: 'v2', handlerDelay: '3s' } } });
  const { home, height } = await haltedForV2(t, fx, { proposal: false });
  const slow = await startNode(t, fx.bin('v2-slow'), home);
  await slow.waitForLog(/upgrade handler "v2" works for 3000 ms before its migrations/);
  assert.equal(await slow.height(), height - 1);
  await slow.waitForHeight(height + 1);
  const at = (pattern: RegExp) => Date.parse((pattern.exec(slow.log()) as RegExpExecArray)[1] as string);
  const started = at(/^(\S+) INF upgrade handler "v2" works for/m);
  const committed = at(new RegExp(`^(\\S+) INF committed state .*height=${height} `, 'm'));
  assert.ok(committed - started >= 3000, `the block came ${committed - started} ms after the handler started`);
  assert.equal((await cli(fx.bin('v2-slow'), ['version'])).stdout, 'v2-slow');
  assert.equal((await slow.stop()).code, 0);
});
