/**
 * The gov queries as a real node serves them: `cosmos.gov.v1.Query` and `cosmos.gov.v1beta1.Query` over
 * gRPC (cosmjs-types' clients) and abci_query (CosmJS's setupGovExtension over Comet38Client), and the
 * REST routes `/cosmos/gov/v1/…`, `/cosmos/gov/v1beta1/…` in grpc-gateway JSON: proposals with their
 * messages, status/depositor filters and pagination, deposits, tallies and params.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { QueryClient, setupGovExtension } from '@cosmjs/stargate';
import { Comet38Client } from '@cosmjs/tendermint-rpc';
import { QueryClientImpl as GovV1Query } from 'cosmjs-types/cosmos/gov/v1/query.js';
import { ProposalStatus } from 'cosmjs-types/cosmos/gov/v1beta1/gov.js';
import { MsgSoftwareUpgrade } from 'cosmjs-types/cosmos/upgrade/v1beta1/tx.js';

import { grpcRpc } from '../support/grpc-client.js';
import { cli, cliJson, proposeCancel, proposeUpgrade, simFixture, startNode, waitForProposal } from '../support/node-harness.js';

const page = (fields: Partial<{ key: Uint8Array; offset: bigint; limit: bigint; countTotal: boolean }> = {}) => ({
  key: new Uint8Array(),
  offset: 0n,
  limit: 0n,
  countTotal: false,
  reverse: false,
  ...fields,
});

test('gov queries: v1 and v1beta1 over gRPC, abci_query (CosmJS) and REST', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome(['--voting-period', '500ms', '--deposit-period', '1h', '--auto-vote']);
  const bin = fx.bin('genesis');
  const node = await startNode(t, bin, home);
  await node.waitForHeight(2);
  const alice = (await cli(bin, ['keys', 'show', 'alice', '-a', '--home', home])).stdout.trim();
  const validator = (await cli(bin, ['keys', 'show', 'validator', '-a', '--home', home])).stdout.trim();

  // Proposal 1 passes; proposal 2 stays in its deposit period with deposits from the validator and alice.
  const info = fx.built.versions.v2?.info as string;
  const height = (await node.height()) + 1000;
  const { id } = await proposeUpgrade(bin, home, { name: 'v2', height, info });
  await waitForProposal(bin, home, id, /PASSED/);
  const second = await proposeCancel(bin, home, { summary: 'later', deposit: '1stake' });
  const deposited = await cli(bin, ['tx', 'gov', 'deposit', '2', '2stake', '--from', 'alice', '--home', home, '--yes']);
  assert.equal(deposited.code, 0, deposited.stderr);

  // CosmJS (v1beta1 over abci_query).
  const comet = await Comet38Client.connect(node.addresses.rpc.replace(/^tcp:/, 'http:'));
  t.after(() => comet.disconnect());
  const cosmjs = QueryClient.withExtensions(comet, setupGovExtension);
  const passed = await cosmjs.gov.proposals(ProposalStatus.PROPOSAL_STATUS_PASSED, '', '');
  assert.deepEqual(
    passed.proposals.map((p) => p.proposalId),
    [1n],
  );
  assert.equal(passed.pagination?.total, 1n);
  const one = (await cosmjs.gov.proposal(1)).proposal;
  assert.equal(one.status, ProposalStatus.PROPOSAL_STATUS_PASSED);
  assert.equal(one.finalTallyResult.yes, '1000000');
  assert.equal(one.content?.typeUrl, '/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade');
  const msg = MsgSoftwareUpgrade.decode(one.content?.value ?? new Uint8Array());
  assert.deepEqual([msg.plan.name, msg.plan.height, msg.plan.info], ['v2', BigInt(height), info]);
  assert.ok(one.votingEndTime.seconds > 0n);
  const two = (await cosmjs.gov.proposal(2)).proposal;
  assert.equal(two.status, ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD);
  assert.equal(two.votingStartTime.seconds, -62135596800n);
  assert.deepEqual(two.totalDeposit, [{ denom: 'stake', amount: '3' }]);
  const deposits = (await cosmjs.gov.deposits(2)).deposits.map((d) => [d.depositor, d.amount] as const);
  assert.deepEqual(
    new Map(deposits),
    new Map([
      [validator, [{ denom: 'stake', amount: '1' }]],
      [alice, [{ denom: 'stake', amount: '2' }]],
    ]),
  );
  assert.deepEqual((await cosmjs.gov.deposit(2, alice)).deposit.amount, [{ denom: 'stake', amount: '2' }]);
  assert.deepEqual((await cosmjs.gov.tally(2)).tally, { yes: '0', abstain: '0', no: '0', noWithVeto: '0' });
  assert.deepEqual((await cosmjs.gov.votes(1)).votes, []);
  assert.deepEqual((await cosmjs.gov.params('voting')).votingParams.votingPeriod, { seconds: 0n, nanos: 500_000_000 });
  assert.equal(Buffer.from((await cosmjs.gov.params('tallying')).tallyParams.quorum).toString(), '334000000000000000');
  assert.deepEqual((await cosmjs.gov.params('deposit')).depositParams.minDeposit, [{ denom: 'stake', amount: '10000000' }]);

  // gRPC, v1: filters and pagination.
  const { client, rpc } = grpcRpc(node.addresses.grpc);
  t.after(() => client.close());
  const gov = new GovV1Query(rpc);
  const firstPage = await gov.Proposals({ proposalStatus: 0, voter: '', depositor: '', pagination: page({ limit: 1n, countTotal: true }) });
  assert.deepEqual(
    firstPage.proposals.map((p) => p.id),
    [1n],
  );
  assert.deepEqual([Buffer.from(firstPage.pagination?.nextKey ?? []).toString('hex'), firstPage.pagination?.total], ['0000000000000002', 2n]);
  const nextPage = await gov.Proposals({ proposalStatus: 0, voter: '', depositor: '', pagination: page({ key: firstPage.pagination?.nextKey, limit: 1n }) });
  assert.deepEqual([nextPage.proposals.map((p) => p.id), nextPage.pagination?.nextKey.length], [[2n], 0]);
  const byAlice = await gov.Proposals({ proposalStatus: 0, voter: '', depositor: alice, pagination: undefined });
  assert.deepEqual(
    byAlice.proposals.map((p) => p.id),
    [2n],
  );
  const proposal = (await gov.Proposal({ proposalId: 1n })).proposal;
  assert.equal(proposal?.messages[0]?.typeUrl, '/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade');
  assert.deepEqual([proposal?.title, proposal?.proposer], ['upgrade v2', validator]);
  const params = await gov.Params({ paramsType: '' });
  assert.deepEqual([params.params?.quorum, params.params?.threshold, params.tallyParams], ['0.334000000000000000', '0.500000000000000000', undefined]);
  assert.equal((await gov.TallyResult({ proposalId: 1n })).tally?.yesCount, '1000000');

  // REST, in grpc-gateway JSON.
  const rest = async (path: string) => {
    const answer = await node.http('api', path);
    assert.equal(answer.status, 200, `${path}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const v1 = (await rest('/cosmos/gov/v1/proposals/1')).proposal;
  assert.deepEqual(Object.keys(v1), [
    'id',
    'messages',
    'status',
    'final_tally_result',
    'submit_time',
    'deposit_end_time',
    'total_deposit',
    'voting_start_time',
    'voting_end_time',
    'metadata',
    'title',
    'summary',
    'proposer',
    'expedited',
    'failed_reason',
  ]);
  assert.deepEqual(v1.messages, [
    {
      '@type': '/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade',
      authority: 'cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn',
      plan: { name: 'v2', time: '0001-01-01T00:00:00Z', height: String(height), info, upgraded_client_state: null },
    },
  ]);
  assert.deepEqual([v1.id, v1.status, v1.final_tally_result.yes_count, v1.expedited], ['1', 'PROPOSAL_STATUS_PASSED', '1000000', false]);
  assert.match(v1.submit_time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/);
  const legacy = (await rest('/cosmos/gov/v1beta1/proposals/2')).proposal;
  assert.deepEqual(
    [legacy.proposal_id, legacy.content['@type'], legacy.status, legacy.voting_start_time, legacy.final_tally_result],
    [
      '2',
      '/cosmos.upgrade.v1beta1.MsgCancelUpgrade',
      'PROPOSAL_STATUS_DEPOSIT_PERIOD',
      '0001-01-01T00:00:00Z',
      { yes: '0', abstain: '0', no: '0', no_with_veto: '0' },
    ],
  );
  const inDeposit = await rest('/cosmos/gov/v1/proposals?proposal_status=PROPOSAL_STATUS_DEPOSIT_PERIOD');
  assert.deepEqual([inDeposit.proposals.map((p: { id: string }) => p.id), inDeposit.pagination], [['2'], { next_key: null, total: '1' }]);
  assert.deepEqual(
    (await rest('/cosmos/gov/v1/proposals?proposal_status=3')).proposals.map((p: { id: string }) => p.id),
    ['1'],
  );
  const limited = await rest('/cosmos/gov/v1beta1/proposals?pagination.limit=1');
  assert.deepEqual(
    [limited.proposals.map((p: { proposal_id: string }) => p.proposal_id), limited.pagination],
    [['1'], { next_key: 'AAAAAAAAAAI=', total: '0' }],
  );
  assert.deepEqual(await rest(`/cosmos/gov/v1/proposals/2/deposits/${alice}`), {
    deposit: { proposal_id: '2', depositor: alice, amount: [{ denom: 'stake', amount: '2' }] },
  });
  assert.equal((await rest('/cosmos/gov/v1/proposals/2/deposits')).pagination.total, '2');
  assert.deepEqual(await rest('/cosmos/gov/v1/proposals/1/tally'), {
    tally: { yes_count: '1000000', abstain_count: '0', no_count: '0', no_with_veto_count: '0' },
  });
  assert.deepEqual(await rest('/cosmos/gov/v1/proposals/1/votes'), { votes: [], pagination: { next_key: null, total: '0' } });
  const tallying = await rest('/cosmos/gov/v1/params/tallying');
  assert.deepEqual(tallying.tally_params, { quorum: '0.334000000000000000', threshold: '0.500000000000000000', veto_threshold: '0.334000000000000000' });
  assert.deepEqual([tallying.voting_params, tallying.params.voting_period, tallying.params.max_deposit_period], [null, '0.500s', '3600s']);
  assert.deepEqual((await rest('/cosmos/gov/v1beta1/params/voting')).voting_params, { voting_period: '0.500s' });

  // At the height of its submission, proposal 2 had only the validator's deposit (REST with the height header).
  const submittedAt = String(JSON.parse(second.stdout).height);
  const then = await fetch(`${node.addresses.api.replace(/^tcp:/, 'http:')}/cosmos/gov/v1/proposals/2/deposits`, {
    headers: { 'x-cosmos-block-height': submittedAt },
  });
  assert.equal(then.headers.get('grpc-metadata-x-cosmos-block-height'), submittedAt);
  assert.deepEqual(
    ((await then.json()) as { deposits: Array<{ depositor: string }> }).deposits.map((d) => d.depositor),
    [validator],
  );

  // The node's own CLI still reads proposals (through its JSON query paths).
  assert.equal((await cliJson(bin, ['query', 'gov', 'proposal', '2', '--home', home])).status, 'PROPOSAL_STATUS_DEPOSIT_PERIOD');
});
