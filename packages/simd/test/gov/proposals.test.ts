/**
 * Governance: a proposal carrying an upgrade message executes when it passes; an invalid plan marks it
 * failed and the chain goes on; deposits, votes, tally and the periods.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { govAddress } from '../../src/core/accounts.js';
import type { AnyMsg } from '../../src/core/msg.js';
import { msgDepositType, msgSubmitProposalType, msgVoteType } from '../../src/gov/msgs.js';
import { cancelUpgradeMsg, softwareUpgradeMsg } from '../../src/upgrade/msgs.js';
import { alice, openTestApp, type TestApp, txOf, validator } from '../support/app-harness.js';
import { proposal, upgradeState } from '../support/state.js';

const stake = (amount: number) => [{ denom: 'stake', amount: String(amount) }];

function submit(messages: AnyMsg[], deposit = 10_000_000, proposer = validator) {
  return txOf(proposer, {
    '@type': msgSubmitProposalType,
    messages,
    initial_deposit: stake(deposit),
    proposer,
    metadata: '',
    title: 'upgrade',
    summary: 'upgrade the chain',
  });
}

const vote = (id: string, option: string, voter = validator) => txOf(voter, { '@type': msgVoteType, proposal_id: id, voter, option });

const schedule = (name: string, height: number) => softwareUpgradeMsg(govAddress, { name, height, info: '' });

/** Moves time past the voting period (1s in these tests) and produces a block. */
async function endVoting(h: TestApp): Promise<void> {
  h.nowMs += 1000;
  await h.block();
}

const gov = { votingPeriod: '1s', depositPeriod: '1s' };

test('with auto-vote the proposal passes when voting ends and the plan is scheduled', async (t) => {
  const h = await openTestApp(t, { genesis: { ...gov, autoVote: true } });
  const block = await h.block(submit([schedule('v2', 50)]));
  assert.equal(block.results[0]?.code, 0, block.results[0]?.log);
  const submitted = block.results[0]?.events.find((e) => e.type === 'submit_proposal');
  assert.deepEqual(submitted?.attributes[0], { key: 'proposal_id', value: '1' });
  assert.equal((await proposal(h.app.reader, '1'))?.status, 'PROPOSAL_STATUS_VOTING_PERIOD');
  assert.equal(await upgradeState(h.app.reader).plan(), undefined);
  await endVoting(h);
  const p = await proposal(h.app.reader, '1');
  assert.equal(p?.status, 'PROPOSAL_STATUS_PASSED');
  assert.equal(p?.final_tally_result.yes_count, '1000000');
  assert.deepEqual(await upgradeState(h.app.reader).plan(), { name: 'v2', height: 50, info: '' });
});

test('an invalid plan marks the proposal failed with the module message; the chain goes on', async (t) => {
  const h = await openTestApp(t, { genesis: { ...gov, autoVote: true } });
  await h.block(submit([schedule('v2', 1)]), submit([schedule('', 100)]), submit([schedule('v2', 0)]));
  await endVoting(h);
  const reasons = await Promise.all(['1', '2', '3'].map(async (id) => proposal(h.app.reader, id)));
  assert.deepEqual(
    reasons.map((p) => [p?.status, p?.failed_reason]),
    [
      ['PROPOSAL_STATUS_FAILED', 'upgrade cannot be scheduled in the past'],
      ['PROPOSAL_STATUS_FAILED', 'name cannot be empty'],
      ['PROPOSAL_STATUS_FAILED', 'height must be greater than 0'],
    ],
  );
  assert.equal(await upgradeState(h.app.reader).plan(), undefined);
  await h.blocksUntil(h.app.lastHeight + 3);
});

test('without votes the proposal is rejected (no quorum); a yes vote of the validator passes it; alice has no voting power', async (t) => {
  const h = await openTestApp(t, { genesis: gov });
  await h.block(submit([schedule('v2', 100)]), submit([schedule('v2', 200)]), submit([schedule('v2', 300)]), submit([schedule('v2', 400)]));
  const votes = await h.block(vote('2', 'VOTE_OPTION_YES'), vote('3', 'VOTE_OPTION_NO'), vote('4', 'VOTE_OPTION_YES', alice));
  assert.deepEqual(
    votes.results.map((r) => r.code),
    [0, 0, 0],
  );
  await endVoting(h);
  const statuses = await Promise.all(['1', '2', '3', '4'].map(async (id) => (await proposal(h.app.reader, id))?.status));
  assert.deepEqual(statuses, ['PROPOSAL_STATUS_REJECTED', 'PROPOSAL_STATUS_PASSED', 'PROPOSAL_STATUS_REJECTED', 'PROPOSAL_STATUS_REJECTED']);
  assert.deepEqual(await upgradeState(h.app.reader).plan(), { name: 'v2', height: 200, info: '' });
  const late = await h.block(vote('1', 'VOTE_OPTION_YES'));
  assert.equal(late.results[0]?.log, 'failed to execute message; message index: 0: 1: inactive proposal');
});

test('a cancel proposal passing removes the scheduled plan', async (t) => {
  const h = await openTestApp(t, { genesis: { ...gov, autoVote: true } });
  await h.block(submit([schedule('v2', 100)]));
  await endVoting(h);
  await h.block(submit([cancelUpgradeMsg(govAddress)]));
  await endVoting(h);
  assert.equal((await proposal(h.app.reader, '2'))?.status, 'PROPOSAL_STATUS_PASSED');
  assert.equal(await upgradeState(h.app.reader).plan(), undefined);
});

test('a proposal below the minimum deposit waits; topped up it votes; left short it is dropped after the deposit period', async (t) => {
  const h = await openTestApp(t, { genesis: { ...gov, autoVote: true } });
  await h.block(submit([schedule('v2', 100)], 1), submit([schedule('v3', 100)], 1));
  assert.equal((await proposal(h.app.reader, '1'))?.status, 'PROPOSAL_STATUS_DEPOSIT_PERIOD');
  const deposit = await h.block(txOf(alice, { '@type': msgDepositType, proposal_id: '1', depositor: alice, amount: stake(9_999_999) }));
  assert.equal(deposit.results[0]?.code, 0, deposit.results[0]?.log);
  assert.equal((await proposal(h.app.reader, '1'))?.status, 'PROPOSAL_STATUS_VOTING_PERIOD');
  await endVoting(h);
  assert.equal((await proposal(h.app.reader, '1'))?.status, 'PROPOSAL_STATUS_PASSED');
  assert.equal(await proposal(h.app.reader, '2'), undefined);
});

test('a proposal whose messages are not signed by the gov account is refused at submission', async (t) => {
  const h = await openTestApp(t, { genesis: gov });
  const block = await h.block(submit([softwareUpgradeMsg(alice, { name: 'v2', height: 100, info: '' })]));
  assert.equal(block.results[0]?.code, 16);
  assert.equal(block.results[0]?.codespace, 'gov');
  assert.equal(block.results[0]?.log, `failed to execute message; message index: 0: ${alice}: expected authority account as only signer for proposal message`);
});
