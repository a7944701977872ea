/** The tally (x/gov keeper/tally.go): power × weight per option, exact sums truncated, quorum, veto and threshold. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { tally } from '../../src/gov/tally.js';
import type { GovParams, VoteOption } from '../../src/gov/types.js';

const params = { quorum: '0.334', threshold: '0.5', veto_threshold: '0.334' } as GovParams;
const vote = (voter: string, ...options: Array<[VoteOption, string]>) => ({ voter, options: options.map(([option, weight]) => ({ option, weight })) });

test('each option counts power × weight; counts are truncated only at the end', () => {
  const powers = new Map([
    ['a', 3],
    ['b', 3],
  ]);
  const votes = [
    vote('a', ['VOTE_OPTION_YES', '0.333333333333333333'], ['VOTE_OPTION_NO', '0.666666666666666667']),
    vote('b', ['VOTE_OPTION_YES', '0.666666666666666667'], ['VOTE_OPTION_NO', '0.333333333333333333']),
  ];
  // yes 0.999999999999999999 + 2.000000000000000001 = 3 exactly, as the SDK's LegacyDec sums.
  assert.deepEqual(tally(votes, powers, params), { passes: false, result: { yes_count: '3', abstain_count: '0', no_count: '3', no_with_veto_count: '0' } });
});

test('quorum counts the whole power of a voter; abstain is left out of the threshold; veto above a third fails', () => {
  const powers = new Map([
    ['a', 60],
    ['b', 40],
    ['c', 200],
  ]);
  assert.equal(tally([vote('a', ['VOTE_OPTION_YES', '1'])], powers, params).passes, false, '60 / 300 < 0.334');
  const passes = tally(
    [
      vote('a', ['VOTE_OPTION_YES', '0.5'], ['VOTE_OPTION_ABSTAIN', '0.5']),
      vote('b', ['VOTE_OPTION_NO', '0.5'], ['VOTE_OPTION_ABSTAIN', '0.5']),
      vote('c', ['VOTE_OPTION_ABSTAIN', '0.9'], ['VOTE_OPTION_YES', '0.1']),
    ],
    powers,
    params,
  );
  assert.deepEqual(passes, { passes: true, result: { yes_count: '50', abstain_count: '230', no_count: '20', no_with_veto_count: '0' } });
  const vetoed = tally([vote('c', ['VOTE_OPTION_YES', '0.6'], ['VOTE_OPTION_NO_WITH_VETO', '0.4'])], powers, params);
  assert.deepEqual(vetoed, { passes: false, result: { yes_count: '120', abstain_count: '0', no_count: '0', no_with_veto_count: '80' } });
  assert.equal(tally([vote('c', ['VOTE_OPTION_ABSTAIN', '1'])], powers, params).passes, false, 'all abstain');
  assert.equal(tally([vote('nobody', ['VOTE_OPTION_YES', '1'])], powers, params).result.yes_count, '0', 'no power, no count');
});
