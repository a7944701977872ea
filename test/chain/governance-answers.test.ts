/**
 * What a hostile or broken node answers the governance reader, from fake servers on real ports (a gRPC
 * server answering raw bytes, a CometBFT RPC answering abci_query): an answer of megabytes, a list that
 * never ends or repeats its key, entries without end, proposals that say what no chain could. Each is
 * refused or skipped with its reason, in words safe to print; never a hang, a crash or unbounded memory.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';

import { status } from '@grpc/grpc-js';
import { Proposal as ProposalV1, VoteOption } from 'cosmjs-types/cosmos/gov/v1/gov.js';
import * as v1 from 'cosmjs-types/cosmos/gov/v1/query.js';
import { MsgExecLegacyContent } from 'cosmjs-types/cosmos/gov/v1/tx.js';
import { QueryValidatorsResponse } from 'cosmjs-types/cosmos/staking/v1beta1/query.js';
import { MsgSoftwareUpgrade } from 'cosmjs-types/cosmos/upgrade/v1beta1/tx.js';
import { SoftwareUpgradeProposal } from 'cosmjs-types/cosmos/upgrade/v1beta1/upgrade.js';

import { ChainAnswerRefusedError, createGovReader, createGrpcClient, createRpcClient } from '../../src/chain/index.js';
import { startFakeGrpc } from '../support/fake-grpc.js';
import { type Reply, startFakeRpc } from '../support/fake-rpc.js';

const proposalsPath = '/cosmos.gov.v1.Query/Proposals';
const tallyPath = '/cosmos.gov.v1.Query/TallyResult';
const votePath = '/cosmos.gov.v1.Query/Vote';
const validatorsPath = '/cosmos.staking.v1beta1.Query/Validators';

async function grpcGov(t: TestContext, answers: Parameters<typeof startFakeGrpc>[0]) {
  const server = await startFakeGrpc(answers);
  t.after(() => server.close());
  const client = createGrpcClient({ address: server.address, timeoutMs: 5000 });
  t.after(() => client.close());
  return { gov: createGovReader(client), calls: server.calls };
}

async function assertRefused(reading: Promise<unknown>, reason: RegExp): Promise<void> {
  await assert.rejects(reading, (error: unknown) => {
    assert.ok(error instanceof ChainAnswerRefusedError, String(error));
    assert.match(error.message, reason);
    return true;
  });
}

const upgradeMessage = (name: string, height: bigint) => ({
  typeUrl: '/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade',
  value: MsgSoftwareUpgrade.encode({ authority: 'gov', plan: { name, height, info: '', time: { seconds: 0n, nanos: 0 } } }).finish(),
});

const inVoting = (id: bigint, messages: Array<{ typeUrl: string; value: Uint8Array }>, votingEnd = { seconds: 1_900_000_000n, nanos: 0 }) =>
  ProposalV1.fromPartial({ id, messages, status: 2, votingEndTime: votingEnd, title: `p${id}` });

const proposalsAnswer = (proposals: ProposalV1[], nextKey = new Uint8Array()) =>
  v1.QueryProposalsResponse.encode({ proposals, pagination: { nextKey, total: 0n } }).finish();

const tallyAnswer = (yes: string, no = '0') =>
  v1.QueryTallyResultResponse.encode({ tally: { yesCount: yes, noCount: no, abstainCount: '0', noWithVetoCount: '0' } }).finish();

test('an answer past 4 MiB is refused by the gRPC channel, not buffered', async (t) => {
  const { gov } = await grpcGov(t, { [proposalsPath]: () => new Uint8Array(5 * 1024 * 1024) });
  await assertRefused(gov.upgradeProposals(), /the answer is larger than 4194304 bytes/);
});

test('a list whose next_key never ends stops after 10 pages of proposals (100 of validators)', async (t) => {
  let page = 0;
  const { gov, calls } = await grpcGov(t, {
    [proposalsPath]: () => proposalsAnswer([], Buffer.from(`key-${++page}`)),
    [validatorsPath]: () => QueryValidatorsResponse.encode({ validators: [], pagination: { nextKey: Buffer.from(`key-${++page}`), total: 0n } }).finish(),
  });
  await assertRefused(gov.upgradeProposals(), /the proposals in their voting period .*goes on past 10 pages of 100 \(1000 entries\)/);
  assert.equal(calls.filter((c) => c === proposalsPath).length, 10);
  await assertRefused(gov.validatorByConsensusAddress('AB'.repeat(20)), /goes on past 100 pages of 100 \(10000 entries\)/);
});

test('a page of millions of empty proposals is refused before it is decoded', async (t) => {
  // 3 MiB of `0a 00`: 1.5 million empty proposals, half a GiB once decoded into objects.
  const bytes = Buffer.alloc(3 * 1024 * 1024);
  for (let i = 0; i < bytes.length; i += 2) bytes[i] = 0x0a;
  const { gov } = await grpcGov(t, { [proposalsPath]: () => bytes });
  await assertRefused(gov.upgradeProposals(), /more than 200000 protobuf fields/);
});

/** A fake RPC answering abci_query per query path (`path="/…"` is the start of the request's query string). */
async function rpcGov(t: TestContext, answers: Record<string, Uint8Array | Reply>) {
  const rpc = await startFakeRpc();
  t.after(() => rpc.close());
  for (const [path, answer] of Object.entries(answers)) {
    const reply = answer instanceof Uint8Array ? { result: { response: { code: 0, value: Buffer.from(answer).toString('base64') } } } : answer;
    rpc.answer(`/abci_query?${new URLSearchParams({ path: JSON.stringify(path) }).toString()}`, reply);
  }
  const client = createRpcClient({ address: rpc.address });
  t.after(() => client.close());
  return { gov: createGovReader(client), requests: rpc.requests };
}

test('over abci_query: the same next_key again ends the read; the request goes as 0x-hex data', async (t) => {
  const { gov, requests } = await rpcGov(t, { [proposalsPath]: proposalsAnswer([], Buffer.from('again')) });
  await assertRefused(gov.upgradeProposals(), /the next page's key 616761696e was given before: the list would never end/);
  assert.equal(requests.length, 2);
  assert.match(requests[1] ?? '', /&data=0x[0-9a-f]+$/);
  assert.ok(requests[1]?.includes(Buffer.from('again').toString('hex')), 'the second page asks from the key given');
});

test('proposals that say what no chain could are skipped with their reason, the others read', async (t) => {
  const legacyContent = (value: Uint8Array) => ({
    typeUrl: '/cosmos.gov.v1.MsgExecLegacyContent',
    value: MsgExecLegacyContent.encode({ authority: 'gov', content: { typeUrl: '/cosmos.upgrade.v1beta1.SoftwareUpgradeProposal', value } }).finish(),
  });
  const proposals = [
    inVoting(1n, [upgradeMessage('good', 1200n)]),
    inVoting(2n, [{ typeUrl: '/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade', value: Uint8Array.from([0x12, 0x40, 0x0a]) }]),
    inVoting(3n, [upgradeMessage('far', 2n ** 60n)]),
    inVoting(4n, [upgradeMessage('\u001b]0;owned\u0007', 0n)]),
    inVoting(5n, [upgradeMessage('late', 1300n)], { seconds: 2n ** 62n, nanos: 0 }),
    inVoting(6n, [legacyContent(Uint8Array.from([0x0a, 0x7f]))]),
    ProposalV1.fromPartial({ id: 7n, messages: [upgradeMessage('passed', 1400n)], status: 3 }),
    inVoting(8n, [{ typeUrl: '/cosmos.bank.v1beta1.MsgSend', value: new Uint8Array() }]),
    inVoting(9n, [
      legacyContent(
        SoftwareUpgradeProposal.encode(SoftwareUpgradeProposal.fromPartial({ title: 'legacy', plan: { name: 'v9', height: 900n, info: 'i' } })).finish(),
      ),
    ]),
  ];
  const { gov } = await rpcGov(t, { [proposalsPath]: proposalsAnswer(proposals), [tallyPath]: tallyAnswer('12x') });
  const read = await gov.upgradeProposals();
  assert.deepEqual(
    read.map((p) => [p.id, p.title, p.plan, p.votingEndMs, p.tally]),
    [
      ['1', 'p1', { name: 'good', height: 1200, info: '' }, 1_900_000_000_000, null],
      ['9', 'p9', { name: 'v9', height: 900, info: 'i' }, 1_900_000_000_000, null],
    ],
  );
  const problems = read.problems;
  const expected = [
    /^proposal #2: its message 1 \(\/cosmos\.upgrade\.v1beta1\.MsgSoftwareUpgrade\) does not decode: /,
    /^proposal #3: the plan "far" has a height past 2\^53/,
    /^proposal #4: the plan "\\u\{1b\}\]0;owned\\u\{7\}" has height 0$/,
    /^proposal #5 has a voting end that is not a time: 4611686018427387904 seconds is outside years 1 to 9999$/,
    /^proposal #6: its message 1 \(\/cosmos\.gov\.v1\.MsgExecLegacyContent\) holds a SoftwareUpgradeProposal that does not decode/,
    /^proposal #7 is not in its voting period \(status 3\)/,
    /^proposal #1: its tally is unknown: .*the yes count "12x" is not a whole number/,
    /^proposal #9: its tally is unknown: /,
  ];
  assert.equal(problems.length, expected.length, problems.join('\n'));
  expected.forEach((pattern, i) => assert.match(problems[i] ?? '', pattern));

  assert.ok(
    problems.every((p) => !/[\u0000-\u001f]/.test(p)),
    'no control character of the chain reaches a message',
  );
});

test('tallies: shares of the votes cast, exact for counts past 2^53', async (t) => {
  const { gov } = await grpcGov(t, {
    [proposalsPath]: () => proposalsAnswer([inVoting(1n, [upgradeMessage('v2', 1200n)])]),
    [tallyPath]: () => tallyAnswer('3000000000000000000000000', '1000000000000000000000000'),
  });
  assert.deepEqual((await gov.upgradeProposals())[0]?.tally, { yes: 0.75, no: 0.25, abstain: 0, noWithVeto: 0 });
});

test('votes: not found is none, several options weighted, an option no chain has refused', async (t) => {
  let answer: Uint8Array | { code: number; details: string } = new Uint8Array();
  const { gov } = await grpcGov(t, { [votePath]: () => answer });
  const vote = (options: Array<{ option: VoteOption; weight: string }>) =>
    v1.QueryVoteResponse.encode({ vote: { proposalId: 1n, voter: 'cosmos1x', options, metadata: '' } }).finish();

  answer = { code: status.NOT_FOUND, details: 'no vote' };
  assert.equal(await gov.vote('1', 'cosmos1x'), 'none');
  // As x/gov answers it.
  answer = { code: status.INVALID_ARGUMENT, details: 'voter: cosmos1x not found for proposal: 1' };
  assert.equal(await gov.vote('1', 'cosmos1x'), 'none');
  answer = vote([{ option: VoteOption.VOTE_OPTION_ABSTAIN, weight: '1.000000000000000000' }]);
  assert.equal(await gov.vote('1', 'cosmos1x'), 'abstain');
  answer = vote([
    { option: VoteOption.VOTE_OPTION_YES, weight: '0.5' },
    { option: VoteOption.VOTE_OPTION_NO, weight: '0.5' },
  ]);
  assert.equal(await gov.vote('1', 'cosmos1x'), 'weighted');
  answer = vote([{ option: 9 as VoteOption, weight: '1' }]);
  await assertRefused(gov.vote('1', 'cosmos1x'), /the vote option 9 is none of/);
  answer = { code: status.INTERNAL, details: 'boom' };
  await assert.rejects(gov.vote('1', 'cosmos1x'), /the query failed \(INTERNAL: boom\)/);
});
