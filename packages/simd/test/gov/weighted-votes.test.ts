/**
 * Weighted votes from the CLI against a running node (`tx gov weighted-vote <id> yes=0.6,no=0.3,…`):
 * weights the SDK refuses, with its messages (from the CLI, or from the chain for a v1 message); the
 * stored options read back over gRPC, abci_query and REST in the v1 and v1beta1 shapes; the tally
 * counting each option by its weight × the voter's power, truncated as the SDK does; and a chain
 * serving gov v1beta1 only, where the CLI sends a v1beta1 MsgVoteWeighted checked before sending.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { QueryClient, setupGovExtension } from '@cosmjs/stargate';
import { Comet38Client } from '@cosmjs/tendermint-rpc';
import { VoteOption } from 'cosmjs-types/cosmos/gov/v1/gov.js';
import { QueryClientImpl as GovV1Query, QueryVoteRequest, QueryVoteResponse } from 'cosmjs-types/cosmos/gov/v1/query.js';
import { QueryClientImpl as GovV1beta1Query } from 'cosmjs-types/cosmos/gov/v1beta1/query.js';

import { grpcRpc } from '../support/grpc-client.js';
import { cli, proposeUpgrade, simFixture, type SimNode, startNode, waitForProposal } from '../support/node-harness.js';

const {
  VOTE_OPTION_YES: yes,
  VOTE_OPTION_ABSTAIN: abstain,
  VOTE_OPTION_NO: no,
  VOTE_OPTION_NO_WITH_VETO: veto,
  VOTE_OPTION_UNSPECIFIED: unspecified,
} = VoteOption;

interface TxOutput {
  code: number;
  codespace: string;
  raw_log: string;
  events: Array<{ type: string; attributes: Array<{ key: string; value: string }> }>;
}

async function address(bin: string, home: string, key: string): Promise<string> {
  return (await cli(bin, ['keys', 'show', key, '-a', '--home', home])).stdout.trim();
}

const weightedVote = (bin: string, home: string, id: string, options: string, from = 'validator') =>
  cli(bin, ['tx', 'gov', 'weighted-vote', id, options, '--from', from, '--home', home]);

async function cosmjsOf(t: { after(fn: () => void): void }, node: SimNode) {
  const comet = await Comet38Client.connect(node.addresses.rpc.replace(/^tcp:/, 'http:'));
  t.after(() => comet.disconnect());
  return QueryClient.withExtensions(comet, setupGovExtension);
}

test('weighted votes on a v1 chain: refused weights, the options over gRPC, abci_query and REST, the weighted tally', async (t) => {
  const fx = await simFixture(t);
  // 60 s of voting: room for the votes and queries below (about 20 commands) on a loaded machine.
  const home = await fx.initHome(['--voting-period', '60s', '--deposit-period', '60s', '--sim-validators', 'alice=300000,bob=200000']);
  const bin = fx.bin('genesis');
  const node = await startNode(t, bin, home);
  const { id } = await proposeUpgrade(bin, home, { name: 'v2', height: (await node.height()) + 5000, info: fx.built.versions.v2?.info });
  const [validator, alice, bob] = (await Promise.all(['validator', 'alice', 'bob'].map((key) => address(bin, home, key)))) as [string, string, string];

  // The CLI's own checks (nothing is sent): option names, decimals, the proposal id.
  const cliRefusals: Array<[string, string, string]> = [
    [id, 'maybe=1', "Error: 'maybe' is not a valid vote option, available options: yes/no/no_with_veto/abstain"],
    [id, 'yes=abc', 'Error: failed to set decimal string with base 10: abc000000000000000000'],
    [id, 'yes=0.5,no=.5', 'Error: invalid decimal length'],
    [id, 'yes=0.1234567890123456789', "Error: value '0.1234567890123456789' exceeds max precision by -1 decimal places: max precision 18"],
    ['one', 'yes=1', 'Error: proposal-id one not a valid int, please input a valid proposal-id'],
  ];
  for (const [proposal, options, stderr] of cliRefusals) {
    const refused = await weightedVote(bin, home, proposal, options);
    assert.deepEqual([refused.code, refused.stdout, refused.stderr], [1, '', stderr], options);
  }

  // The chain's checks of a v1 MsgVoteWeighted (the msg server's, SDK v0.50): code 8 of gov.
  const chainRefusals: Array<[string, string]> = [
    ['yes=0.6,no=0.3', 'total weight lower than 1.00: invalid vote option'],
    ['yes=0.7,no=0.4', 'total weight overflow 1.00: invalid vote option'],
    ['yes=0.5,yes=0.5', 'duplicated vote option: invalid vote option'],
    ['yes=0,no=1', 'option:VOTE_OPTION_YES weight:"0.000000000000000000" : invalid vote option'],
    ['yes=2,no=-1', 'option:VOTE_OPTION_YES weight:"2.000000000000000000" : invalid vote option'],
  ];
  for (const [options, log] of chainRefusals) {
    const refused = await weightedVote(bin, home, id, options);
    const response = JSON.parse(refused.stdout) as TxOutput;
    const rawLog = `failed to execute message; message index: 0: ${log}`;
    assert.deepEqual([refused.code, response.code, response.codespace, response.raw_log], [1, 8, 'gov', rawLog], options);
    assert.equal(refused.stderr, `Error: ${rawLog}`);
  }

  // Valid votes: the validator splits its power four ways, alice two, bob in thirds (truncated sums).
  const split = await weightedVote(bin, home, id, 'yes=0.6,no=0.3,abstain=0.05,no_with_veto=0.05');
  assert.equal(split.code, 0, split.stderr);
  const voteEvent = (JSON.parse(split.stdout) as TxOutput).events.find((e) => e.type === 'proposal_vote');
  assert.deepEqual(
    voteEvent?.attributes.slice(0, 3).map(({ key, value }) => ({ key, value })),
    [
      { key: 'voter', value: validator },
      {
        key: 'option',
        value: [
          'option:VOTE_OPTION_YES weight:"0.600000000000000000" ',
          'option:VOTE_OPTION_NO weight:"0.300000000000000000" ',
          'option:VOTE_OPTION_ABSTAIN weight:"0.050000000000000000" ',
          'option:VOTE_OPTION_NO_WITH_VETO weight:"0.050000000000000000"',
        ].join('\n'),
      },
      { key: 'proposal_id', value: id },
    ],
  );
  assert.equal((await weightedVote(bin, home, id, 'No=0.5,Abstain=0.5', 'alice')).code, 0);
  assert.equal((await weightedVote(bin, home, id, 'VOTE_OPTION_YES=0.333333333333333333,no=0.666666666666666667', 'bob')).code, 0);

  const weights = (...pairs: Array<[VoteOption, string]>) => pairs.map(([option, weight]) => ({ option, weight }));
  const validatorOptions = weights(
    [yes, '0.600000000000000000'],
    [no, '0.300000000000000000'],
    [abstain, '0.050000000000000000'],
    [veto, '0.050000000000000000'],
  );

  // gRPC, v1.
  const { client, rpc } = grpcRpc(node.addresses.grpc);
  t.after(() => client.close());
  const v1 = new GovV1Query(rpc);
  const vote = (await v1.Vote({ proposalId: BigInt(id), voter: validator })).vote;
  assert.deepEqual([vote?.voter, vote?.options], [validator, validatorOptions]);
  const votes = (await v1.Votes({ proposalId: BigInt(id), pagination: undefined })).votes;
  assert.deepEqual(
    new Map(votes.map((v) => [v.voter, v.options])),
    new Map([
      [validator, validatorOptions],
      [alice, weights([no, '0.500000000000000000'], [abstain, '0.500000000000000000'])],
      [bob, weights([yes, '0.333333333333333333'], [no, '0.666666666666666667'])],
    ]),
  );
  // yes 600000 + 66666.67 → 666666; no 300000 + 150000 + 133333.33 → 583333; abstain 50000 + 150000; veto 50000.
  const running = { yesCount: '666666', abstainCount: '200000', noCount: '583333', noWithVetoCount: '50000' };
  assert.deepEqual((await v1.TallyResult({ proposalId: BigInt(id) })).tally, running);

  // gRPC, v1beta1: the weights as LegacyDec integers (× 10¹⁸), the deprecated option unset.
  const legacy = (await new GovV1beta1Query(rpc).Vote({ proposalId: BigInt(id), voter: alice })).vote;
  assert.deepEqual([legacy.option, legacy.options], [unspecified, weights([no, '500000000000000000'], [abstain, '500000000000000000'])]);

  // abci_query: CosmJS's (v1beta1) gov extension, and the v1 path.
  const cosmjs = await cosmjsOf(t, node);
  const viaAbci = (await cosmjs.gov.vote(id, validator)).vote;
  assert.deepEqual(
    viaAbci.options.map((o) => [o.option, o.weight]),
    [
      [yes, '600000000000000000'],
      [no, '300000000000000000'],
      [abstain, '50000000000000000'],
      [veto, '50000000000000000'],
    ],
  );
  assert.equal((await cosmjs.gov.votes(id)).votes.length, 3);
  const abciV1 = QueryVoteResponse.decode(
    await cosmjs.queryAbci('/cosmos.gov.v1.Query/Vote', QueryVoteRequest.encode({ proposalId: BigInt(id), voter: bob }).finish()).then((r) => r.value),
  );
  assert.deepEqual(abciV1.vote?.options, weights([yes, '0.333333333333333333'], [no, '0.666666666666666667']));
  assert.deepEqual((await cosmjs.gov.tally(id)).tally, { yes: '666666', abstain: '200000', no: '583333', noWithVeto: '50000' });

  // REST.
  const restV1 = await node.http('api', `/cosmos/gov/v1/proposals/${id}/votes/${validator}`);
  assert.deepEqual(restV1.body, {
    vote: {
      proposal_id: id,
      voter: validator,
      options: [
        { option: 'VOTE_OPTION_YES', weight: '0.600000000000000000' },
        { option: 'VOTE_OPTION_NO', weight: '0.300000000000000000' },
        { option: 'VOTE_OPTION_ABSTAIN', weight: '0.050000000000000000' },
        { option: 'VOTE_OPTION_NO_WITH_VETO', weight: '0.050000000000000000' },
      ],
      metadata: '',
    },
  });
  const restV1beta1 = await node.http('api', `/cosmos/gov/v1beta1/proposals/${id}/votes/${alice}`);
  assert.deepEqual(restV1beta1.body, {
    vote: {
      proposal_id: id,
      voter: alice,
      option: 'VOTE_OPTION_UNSPECIFIED',
      options: [
        { option: 'VOTE_OPTION_NO', weight: '0.500000000000000000' },
        { option: 'VOTE_OPTION_ABSTAIN', weight: '0.500000000000000000' },
      ],
    },
  });
  const restVotes = await node.http('api', `/cosmos/gov/v1/proposals/${id}/votes`);
  assert.equal(restVotes.body.votes.length, 3);

  // yes / (voted − abstain) = 666666.67 / 1300000 > 0.5, veto 50000 / 1500000 < 0.334: it passes, with the weighted counts.
  const passed = await waitForProposal(bin, home, id, /PASSED|FAILED|REJECTED/, 90_000);
  assert.equal(passed.status, 'PROPOSAL_STATUS_PASSED');
  assert.deepEqual(passed.final_tally_result, { yes_count: '666666', abstain_count: '200000', no_count: '583333', no_with_veto_count: '50000' });
});

test('weighted votes on a v1beta1-only chain: a v1beta1 MsgVoteWeighted, checked by the CLI; its options in the legacy shapes', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome(['--voting-period', '20s', '--deposit-period', '20s', '--sim-gov-v1beta1-only', '--sim-validators', 'alice=100']);
  const bin = fx.bin('genesis');
  const node = await startNode(t, bin, home);
  const { id } = await proposeUpgrade(bin, home, { name: 'v2', height: (await node.height()) + 5000, info: fx.built.versions.v2?.info, extra: ['--legacy'] });
  const [validator, alice] = (await Promise.all(['validator', 'alice'].map((key) => address(bin, home, key)))) as [string, string];

  // ValidateBasic of the legacy message, run by the CLI before sending (capitalised, as in the SDK).
  for (const [options, message] of [
    ['yes=0.5', 'Total weight lower than 1.00: invalid vote option'],
    ['yes=0.5,no=0.6', 'Total weight overflow 1.00: invalid vote option'],
    ['no=0.5,no=0.5', 'Duplicated vote option: invalid vote option'],
  ]) {
    const refused = await weightedVote(bin, home, id, options as string, 'alice');
    assert.deepEqual([refused.code, refused.stdout, refused.stderr], [1, '', `Error: ${message}`]);
  }
  const cosmjs = await cosmjsOf(t, node);
  assert.deepEqual((await cosmjs.gov.votes(id)).votes, [], 'nothing was sent');

  const split = await weightedVote(bin, home, id, 'yes=0.25,no=0.75', 'alice');
  assert.equal(split.code, 0, split.stderr);
  const message = (JSON.parse(split.stdout) as TxOutput).events.find((e) => e.type === 'message');
  assert.equal(message?.attributes.find((a) => a.key === 'action')?.value, '/cosmos.gov.v1beta1.MsgVoteWeighted');
  const plain = await cli(bin, ['tx', 'gov', 'vote', id, 'yes', '--from', 'validator', '--home', home]);
  assert.equal(plain.code, 0, plain.stderr);

  // v1beta1 over abci_query (CosmJS) and gRPC: a split vote leaves the deprecated option unset, a whole one fills it (SDK v0.43–v0.45).
  const aliceVote = (await cosmjs.gov.vote(id, alice)).vote;
  assert.deepEqual(
    [aliceVote.option, aliceVote.options],
    [
      unspecified,
      [
        { option: yes, weight: '250000000000000000' },
        { option: no, weight: '750000000000000000' },
      ],
    ],
  );
  const { client, rpc } = grpcRpc(node.addresses.grpc);
  t.after(() => client.close());
  const validatorVote = (await new GovV1beta1Query(rpc).Vote({ proposalId: BigInt(id), voter: validator })).vote;
  assert.deepEqual([validatorVote.option, validatorVote.options], [yes, [{ option: yes, weight: '1000000000000000000' }]]);
  assert.deepEqual((await cosmjs.gov.tally(id)).tally, { yes: '1000025', abstain: '0', no: '75', noWithVeto: '0' });

  const rest = await node.http('api', `/cosmos/gov/v1beta1/proposals/${id}/votes/${alice}`);
  assert.deepEqual(rest.body.vote, {
    proposal_id: id,
    voter: alice,
    option: 'VOTE_OPTION_UNSPECIFIED',
    options: [
      { option: 'VOTE_OPTION_YES', weight: '0.250000000000000000' },
      { option: 'VOTE_OPTION_NO', weight: '0.750000000000000000' },
    ],
  });
  const restVotes = await node.http('api', `/cosmos/gov/v1beta1/proposals/${id}/votes`);
  assert.deepEqual(
    new Map(restVotes.body.votes.map((v: { voter: string; option: string }) => [v.voter, v.option])),
    new Map([
      [validator, 'VOTE_OPTION_YES'],
      [alice, 'VOTE_OPTION_UNSPECIFIED'],
    ]),
  );
});
