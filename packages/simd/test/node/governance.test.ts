/**
 * Governance from the CLI against a running node: invalid info refused before sending, failed
 * proposals with the module's messages, the authority check, re-scheduling, cancelling before the
 * height (the chain then passes it), the warnings of upgrade-module.md §3 rules 2 and 3, votes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { cli, cliJson, proposeCancel, proposeUpgrade, simFixture, startNode, waitForProposal } from '../support/node-harness.js';

test('proposals from the CLI: validation, failures, authority, re-scheduling and cancelling', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const bin = fx.bin('genesis');
  const node = await startNode(t, bin, home);
  await node.waitForHeight(2);
  const info = fx.built.versions.v2?.info as string;

  // Invalid --upgrade-info: refused by the CLI, nothing submitted.
  const bad = await cli(bin, [
    'tx',
    'upgrade',
    'software-upgrade',
    'v2',
    '--title',
    't',
    '--summary',
    's',
    '--deposit',
    '10000000stake',
    '--upgrade-height',
    '500',
    '--upgrade-info',
    '{"binaries":{"linux/amd64":"https://x.test/simd"}}',
    '--from',
    'validator',
    '--home',
    home,
  ]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /invalid --upgrade-info:\n {2}- binaries.linux\/amd64: the URL has no checksum/);
  assert.match(bad.stderr, /--no-validate/);
  const none = await cli(bin, ['query', 'gov', 'proposal', '1', '--home', home]);
  assert.match(none.stderr, /rpc error: code = NotFound desc = rpc error: code = NotFound desc = proposal 1 doesn't exist: key not found/);
  // AutoCLI's uint64 positional: a bad id is refused before any query; Go's base prefixes are taken.
  const notNumber = await cli(bin, ['query', 'gov', 'proposal', 'abc', '--home', home]);
  assert.equal(notNumber.code, 1);
  assert.equal(notNumber.stderr, 'Error: invalid argument "abc" for "--0" flag: strconv.ParseUint: parsing "abc": invalid syntax');
  const hex = await cli(bin, ['query', 'gov', 'proposal', '0x1', '--home', home]);
  assert.match(hex.stderr, /proposal 1 doesn't exist/);

  // Only the gov account may execute the message: sent directly by alice it fails with code 6.
  const direct = await cli(bin, [
    'tx',
    'upgrade',
    'software-upgrade',
    'v2',
    '--upgrade-height',
    '500',
    '--upgrade-info',
    info,
    '--from',
    'alice',
    '--direct',
    '--home',
    home,
  ]);
  assert.equal(direct.code, 1);
  const response = JSON.parse(direct.stdout);
  assert.deepEqual([response.code, response.codespace], [6, 'upgrade']);
  const alice = (await cli(bin, ['keys', 'show', 'alice', '-a'])).stdout;
  assert.match(
    direct.stderr,
    new RegExp(`expected cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn got ${alice}: expected authority account as only signer for proposal message`),
  );

  // Invalid plans pass the vote and fail on execution, with the module's message; the chain goes on.
  const current = await node.height();
  const empty = await proposeUpgrade(bin, home, { name: '', height: current + 500, extra: ['--no-validate'] });
  const past = await proposeUpgrade(bin, home, { name: 'v2', height: current + 1, info });
  assert.match(
    past.stderr,
    /WARNING: the vote on this proposal ends around height \d+ .* after the upgrade height \d+: .*"upgrade cannot be scheduled in the past"/,
  );
  const emptyDone = await waitForProposal(bin, home, empty.id, /PASSED|FAILED|REJECTED/);
  const pastDone = await waitForProposal(bin, home, past.id, /PASSED|FAILED|REJECTED/);
  assert.deepEqual([emptyDone.status, emptyDone.failed_reason], ['PROPOSAL_STATUS_FAILED', 'name cannot be empty']);
  assert.deepEqual([pastDone.status, pastDone.failed_reason], ['PROPOSAL_STATUS_FAILED', 'upgrade cannot be scheduled in the past']);

  // Schedule, then re-schedule to a new height: the last passed plan wins.
  const first = (await node.height()) + 1000;
  const soon = await proposeUpgrade(bin, home, { name: 'v2', height: first, info });
  await waitForProposal(bin, home, soon.id, /PASSED/);
  assert.equal((await cliJson<{ height: string }>(bin, ['query', 'upgrade', 'plan', '--home', home])).height, String(first));
  const later = await proposeUpgrade(bin, home, { name: 'v2', height: first + 20, info });
  await waitForProposal(bin, home, later.id, /PASSED/);
  assert.equal((await cliJson<{ height: string }>(bin, ['query', 'upgrade', 'plan', '--home', home])).height, String(first + 20));

  // Re-schedule close to now; with a safety delta of 10 s there is no room to cancel, and the CLI says so.
  // The cancel proposal goes in while the upgrade proposal is still being voted on (upgrade-module.md §3 rule 3):
  // its vote ends later, so it removes the plan that the first one schedules, before the height.
  // 220 blocks of 50 ms: room for the two proposals and their votes, still short of the 240 (12 s) a cancel needs.
  const close = (await node.height()) + 220;
  const closePlan = await proposeUpgrade(bin, home, { name: 'v2', height: close, info, extra: ['--safety-delta', '10s'] });
  assert.match(closePlan.stderr, /WARNING: upgrade height \d+ leaves no room to cancel: .* \+ safety delta 10s .* schedule it at height \d+ or later/);
  const { id: cancelId } = await proposeCancel(bin, home, { summary: 'bad idea' });
  assert.equal((await waitForProposal(bin, home, closePlan.id, /PASSED|FAILED|REJECTED/)).status, 'PROPOSAL_STATUS_PASSED');
  const cancelled = await waitForProposal(bin, home, cancelId, /PASSED|FAILED|REJECTED/);
  assert.equal(cancelled.status, 'PROPOSAL_STATUS_PASSED');
  const noPlan = await cli(bin, ['query', 'upgrade', 'plan', '--home', home]);
  assert.match(noPlan.stderr, /no upgrade scheduled/);
  await node.waitForHeight(close + 2);
  assert.doesNotMatch(node.log(), /NEEDED/);

  const all = await cliJson<{ proposals: Array<{ id: string; status: string }> }>(bin, ['query', 'gov', 'proposals', '--home', home]);
  assert.deepEqual(
    all.proposals.map((p) => p.status),
    [
      'PROPOSAL_STATUS_FAILED',
      'PROPOSAL_STATUS_FAILED',
      'PROPOSAL_STATUS_PASSED',
      'PROPOSAL_STATUS_PASSED',
      'PROPOSAL_STATUS_PASSED',
      'PROPOSAL_STATUS_PASSED',
    ],
  );
  assert.equal((await node.stop()).code, 0);
});

test('without auto-vote, a vote from the CLI passes the proposal; a vote after the period is refused', async (t) => {
  const fx = await simFixture(t);
  // 10 s of voting: room for the vote below on a loaded machine.
  const home = await fx.initHome(['--voting-period', '10s', '--deposit-period', '10s']);
  const bin = fx.bin('genesis');
  const node = await startNode(t, bin, home);
  const unvoted = await proposeUpgrade(bin, home, { name: 'v2', height: (await node.height()) + 1000, info: fx.built.versions.v2?.info });
  const voted = await proposeUpgrade(bin, home, { name: 'v2', height: (await node.height()) + 2000, info: fx.built.versions.v2?.info });
  const vote = await cli(bin, ['tx', 'gov', 'vote', voted.id, 'yes', '--from', 'validator', '--home', home]);
  assert.equal(vote.code, 0, vote.stderr);
  assert.ok(JSON.parse(vote.stdout).events.some((e: { type: string }) => e.type === 'proposal_vote'));
  const rejected = await waitForProposal(bin, home, unvoted.id, /PASSED|FAILED|REJECTED/);
  assert.equal(rejected.status, 'PROPOSAL_STATUS_REJECTED');
  const passed = await waitForProposal(bin, home, voted.id, /PASSED|FAILED|REJECTED/);
  assert.equal(passed.status, 'PROPOSAL_STATUS_PASSED');
  assert.equal(passed.final_tally_result.yes_count, '1000000');
  const late = await cli(bin, ['tx', 'gov', 'vote', voted.id, 'no', '--from', 'validator', '--home', home]);
  assert.equal(late.code, 1);
  assert.match(late.stderr, new RegExp(`${voted.id}: inactive proposal`));
  assert.equal((await node.stop()).code, 0);
});
