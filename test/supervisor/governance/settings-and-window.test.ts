/**
 * The governance settings as an operator writes them (CHAINVISOR_STAGE_PROPOSALS, CHAINVISOR_VOTE_REMINDER,
 * CHAINVISOR_PROPOSAL_POLL_INTERVAL), which URLs may be fetched while a vote runs, and the cancel window
 * (issue #45, item 5): too late when the height is expected before the voting end plus a deposit and a
 * voting period.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadConfig } from '../../../src/config/index.js';
import { stagingAllowed, tooLateToCancel } from '../../../src/supervisor/governance/index.js';

const base = { DAEMON_HOME: '/nonexistent/home', DAEMON_NAME: 'simd' };
const load = (env: Record<string, string>) => loadConfig({ env: { ...base, ...env } }).config;
const problemOf = (env: Record<string, string>): string => {
  try {
    load(env);
  } catch (error) {
    return JSON.stringify((error as { problems: unknown }).problems);
  }
  return '';
};

test('the defaults: proposals read every 10 minutes, nothing fetched while voted, reminded 24 h before the end', () => {
  const config = load({});
  assert.equal(config.proposalPollInterval, 600_000);
  assert.equal(config.stageProposals, 'off');
  assert.equal(config.voteReminder, 86_400_000);
});

test('CHAINVISOR_STAGE_PROPOSALS: off, any, or host names (lower case, no spaces); a URL or a wildcard is refused', () => {
  assert.equal(load({ CHAINVISOR_STAGE_PROPOSALS: 'ANY' }).stageProposals, 'any');
  assert.equal(load({ CHAINVISOR_STAGE_PROPOSALS: ' GitHub.com , objects.githubusercontent.com' }).stageProposals, 'github.com,objects.githubusercontent.com');
  for (const bad of ['https://github.com', '*.github.com', 'github.com/releases', 'github.com:443', ',']) {
    assert.match(problemOf({ CHAINVISOR_STAGE_PROPOSALS: bad }), /CHAINVISOR_STAGE_PROPOSALS/, bad);
  }
});

test('CHAINVISOR_VOTE_REMINDER: a duration, or off (0); under a minute is refused; the poll interval: 0s turns it off, under 1 s refused', () => {
  assert.equal(load({ CHAINVISOR_VOTE_REMINDER: 'off' }).voteReminder, 0);
  assert.equal(load({ CHAINVISOR_VOTE_REMINDER: '0s' }).voteReminder, 0);
  assert.equal(load({ CHAINVISOR_VOTE_REMINDER: '48h' }).voteReminder, 172_800_000);
  assert.match(problemOf({ CHAINVISOR_VOTE_REMINDER: '30s' }), /at least 1m/);
  assert.match(problemOf({ CHAINVISOR_VOTE_REMINDER: 'soon' }), /duration/);
  assert.equal(load({ CHAINVISOR_PROPOSAL_POLL_INTERVAL: '0s' }).proposalPollInterval, 0);
  assert.match(problemOf({ CHAINVISOR_PROPOSAL_POLL_INTERVAL: '500ms' }), /at least 1s/);
});

test('a URL may be fetched while voted only on a listed host (exactly), or with any', () => {
  assert.equal(stagingAllowed('off', 'https://github.com/a/b'), false);
  assert.equal(stagingAllowed('any', 'https://example.org/a'), true);
  assert.equal(stagingAllowed('github.com', 'https://github.com/a/b'), true);
  assert.equal(stagingAllowed('github.com', 'https://GITHUB.com/a/b'), true);
  assert.equal(stagingAllowed('github.com', 'https://evil-github.com/a'), false);
  assert.equal(stagingAllowed('github.com', 'https://github.com.evil.org/a'), false);
  assert.equal(stagingAllowed('github.com', 'https://objects.github.com/a'), false);
  assert.equal(stagingAllowed('github.com', 'not a url'), false);
});

test('the cancel window: too late when the height comes before the voting end + deposit + voting periods, with the numbers', () => {
  const now = Date.parse('2026-11-29T00:00:00Z');
  const periods = { votingPeriodMs: 2 * 86_400_000, depositPeriodMs: 86_400_000 };
  const votingEndMs = now + 86_400_000; // the vote ends in a day
  // 6 s blocks, read at `now` at height 1000.
  const blockTime = { seconds: 6, basedOnBlocks: 500, height: 1000, at: now };
  const inDays = (days: number) => 1000 + (days * 86_400) / 6;
  // Expected 3.5 days from now: before the vote end (1 day) + 1 + 2 days = 4 days.
  const late = tooLateToCancel({ height: inDays(3.5), votingEndMs }, periods, blockTime, now);
  assert.deepEqual(late, {
    votingEnd: '2026-11-30T00:00:00.000Z',
    votingPeriodSeconds: 172_800,
    depositPeriodSeconds: 86_400,
    cancellableUntil: '2026-12-03T00:00:00.000Z',
    heightAt: '2026-12-02T12:00:00.000Z',
  });
  // Expected 5 days from now: a cancellation proposed after the vote could still pass.
  assert.equal(tooLateToCancel({ height: inDays(5), votingEndMs }, periods, blockTime, now), null);
  // A height the chain has passed is no upgrade to cancel (the module refuses it when the vote passes).
  assert.equal(tooLateToCancel({ height: 900, votingEndMs }, periods, blockTime, now), null);
  // Unknown without a block time, without the params, or without a voting end: nothing said.
  assert.equal(tooLateToCancel({ height: inDays(3.5), votingEndMs }, periods, null, now), null);
  assert.equal(tooLateToCancel({ height: inDays(3.5), votingEndMs }, undefined, blockTime, now), null);
  assert.equal(tooLateToCancel({ height: inDays(3.5), votingEndMs: null }, periods, blockTime, now), null);
});
