/**
 * Upgrade proposals as older clients and chains make them: a legacy SoftwareUpgradeProposal (kept as a
 * v1 proposal holding MsgExecLegacyContent, shown as its `content` by v1beta1) and a legacy cancel,
 * both executed when they pass; and a chain serving gov v1beta1 only (`init --sim-gov-v1beta1-only`),
 * where v1 is unknown to gRPC, abci_query and REST while v1beta1 answers, legacy votes included.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { QueryClient, setupGovExtension } from '@cosmjs/stargate';
import { Comet38Client } from '@cosmjs/tendermint-rpc';
import { QueryClientImpl as GovV1Query } from 'cosmjs-types/cosmos/gov/v1/query.js';
import { MsgExecLegacyContent } from 'cosmjs-types/cosmos/gov/v1/tx.js';
import { ProposalStatus } from 'cosmjs-types/cosmos/gov/v1beta1/gov.js';
import { SoftwareUpgradeProposal } from 'cosmjs-types/cosmos/upgrade/v1beta1/upgrade.js';

import { encodeTx, simSigned } from '../../src/chain/tx.js';
import { grpcError, grpcRpc } from '../support/grpc-client.js';
import { cli, cliJson, proposalIdOf, proposeUpgrade, simFixture, startNode, waitForProposal } from '../support/node-harness.js';

const gov = 'cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn';
const cancelArgs = () => ['tx', 'upgrade', 'cancel-software-upgrade', '--title', 'stop', '--summary', 'bad', '--deposit', '10000000stake'];

test('a legacy SoftwareUpgradeProposal and a legacy cancel: MsgExecLegacyContent in v1, content in v1beta1, executed', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const bin = fx.bin('genesis');
  const node = await startNode(t, bin, home);
  await node.waitForHeight(2);
  const info = fx.built.versions.v2?.info as string;
  const height = (await node.height()) + 2000;
  const { id } = await proposeUpgrade(bin, home, { name: 'v2', height, info, extra: ['--legacy'] });
  assert.equal((await waitForProposal(bin, home, id, /PASSED|FAILED|REJECTED/)).status, 'PROPOSAL_STATUS_PASSED');
  assert.equal((await cliJson<{ height: string }>(bin, ['query', 'upgrade', 'plan', '--home', home])).height, String(height));

  const { client, rpc } = grpcRpc(node.addresses.grpc);
  t.after(() => client.close());
  const v1 = (await new GovV1Query(rpc).Proposal({ proposalId: BigInt(id) })).proposal;
  assert.deepEqual(
    v1?.messages.map((m) => m.typeUrl),
    [MsgExecLegacyContent.typeUrl],
  );
  const exec = MsgExecLegacyContent.decode(v1?.messages[0]?.value ?? new Uint8Array());
  assert.deepEqual([exec.authority, exec.content?.typeUrl], [gov, SoftwareUpgradeProposal.typeUrl]);
  const content = SoftwareUpgradeProposal.decode(exec.content?.value ?? new Uint8Array());
  assert.deepEqual(
    [content.title, content.description, content.plan.name, content.plan.height, content.plan.info],
    ['upgrade v2', 'test upgrade', 'v2', BigInt(height), info],
  );
  assert.deepEqual([v1?.title, v1?.summary], ['upgrade v2', 'test upgrade']);

  const comet = await Comet38Client.connect(node.addresses.rpc.replace(/^tcp:/, 'http:'));
  t.after(() => comet.disconnect());
  const legacy = (await QueryClient.withExtensions(comet, setupGovExtension).gov.proposal(id)).proposal;
  assert.equal(legacy.content?.typeUrl, SoftwareUpgradeProposal.typeUrl);
  assert.equal(SoftwareUpgradeProposal.decode(legacy.content?.value ?? new Uint8Array()).plan.height, BigInt(height));

  const rest = await node.http('api', `/cosmos/gov/v1/proposals/${id}`);
  const plan = { name: 'v2', time: '0001-01-01T00:00:00Z', height: String(height), info, upgraded_client_state: null };
  assert.deepEqual(rest.body.proposal.messages, [
    {
      '@type': MsgExecLegacyContent.typeUrl,
      content: { '@type': SoftwareUpgradeProposal.typeUrl, title: 'upgrade v2', description: 'test upgrade', plan },
      authority: gov,
    },
  ]);
  const restLegacy = await node.http('api', `/cosmos/gov/v1beta1/proposals/${id}`);
  assert.deepEqual(restLegacy.body.proposal.content, { '@type': SoftwareUpgradeProposal.typeUrl, title: 'upgrade v2', description: 'test upgrade', plan });

  // The legacy cancel removes the plan when it passes.
  const cancel = await cli(bin, [...cancelArgs(), '--legacy', '--from', 'validator', '--home', home]);
  assert.equal(cancel.code, 0, cancel.stderr);
  const cancelled = await waitForProposal(bin, home, proposalIdOf(cancel.stdout), /PASSED|FAILED|REJECTED/);
  assert.equal(cancelled.status, 'PROPOSAL_STATUS_PASSED', cancelled.failed_reason);
  assert.match((await cli(bin, ['query', 'upgrade', 'plan', '--home', home])).stderr, /no upgrade scheduled/);
});

test('a chain serving gov v1beta1 only: v1 unknown over gRPC, abci_query and REST; v1beta1 and its votes answer', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome(['--voting-period', '6s', '--deposit-period', '6s', '--sim-gov-v1beta1-only', '--sim-validators', 'alice=100']);
  const bin = fx.bin('genesis');
  const node = await startNode(t, bin, home);
  await node.waitForHeight(2);
  const { id } = await proposeUpgrade(bin, home, { name: 'v2', height: (await node.height()) + 5000, info: fx.built.versions.v2?.info, extra: ['--legacy'] });

  const { client, rpc } = grpcRpc(node.addresses.grpc);
  t.after(() => client.close());
  const unknown = await grpcError(new GovV1Query(rpc).Proposals({ proposalStatus: 0, voter: '', depositor: '', pagination: undefined }));
  assert.equal(unknown.code, 12);
  const abci = (await node.http('rpc', `/abci_query?path="/cosmos.gov.v1.Query/Proposals"`)).body.result.response;
  assert.deepEqual([abci.code, abci.codespace, abci.log], [6, 'sdk', 'unknown query path: unknown request']);
  const rest = await node.http('api', '/cosmos/gov/v1/proposals');
  assert.deepEqual([rest.status, rest.body], [501, { code: 12, message: 'Not Implemented', details: [] }]);

  // A v1beta1 MsgVote, as CosmJS's signing client sends one, signed by alice.
  const alice = (await cli(bin, ['keys', 'show', 'alice', '-a', '--home', home])).stdout.trim();
  const tx = encodeTx(
    simSigned(alice, [{ '@type': '/cosmos.gov.v1beta1.MsgVote', proposal_id: id, voter: alice, option: 'VOTE_OPTION_NO' }], { sequence: 0n }),
  );
  const sent = (await node.http('rpc', `/broadcast_tx_commit?tx=0x${tx.toString('hex')}`)).body.result;
  assert.deepEqual([sent.check_tx.code, sent.tx_result.code], [0, 0], JSON.stringify(sent));

  const comet = await Comet38Client.connect(node.addresses.rpc.replace(/^tcp:/, 'http:'));
  t.after(() => comet.disconnect());
  const cosmjs = QueryClient.withExtensions(comet, setupGovExtension);
  const voting = await cosmjs.gov.proposals(ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD, '', '');
  assert.deepEqual(
    voting.proposals.map((p) => [p.proposalId, p.content?.typeUrl]),
    [[BigInt(id), SoftwareUpgradeProposal.typeUrl]],
  );
  assert.deepEqual((await cosmjs.gov.tally(id)).tally, { yes: '0', abstain: '0', no: '100', noWithVeto: '0' });
  assert.equal((await cosmjs.gov.vote(id, alice)).vote.options[0]?.option, 3);
  const restVotes = await node.http('api', `/cosmos/gov/v1beta1/proposals/${id}/votes`);
  assert.deepEqual(
    restVotes.body.votes.map((v: { voter: string }) => v.voter),
    [alice],
  );
});
