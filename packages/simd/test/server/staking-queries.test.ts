/**
 * A vote as a validator supervisor reads it: staking `Validators`/`Validator` with the operator address
 * and the Any-packed ed25519 consensus key of the home (gRPC with cosmjs-types, abci_query with CosmJS's
 * setupStakingExtension, REST in the gateway's snake_case), and a proposal in its voting period voted
 * by other validators (`init --sim-validators`) before this one, with the running tally.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

import { decodePubkey } from '@cosmjs/proto-signing';
import { QueryClient, setupGovExtension, setupStakingExtension } from '@cosmjs/stargate';
import { Comet38Client } from '@cosmjs/tendermint-rpc';
import { PubKey } from 'cosmjs-types/cosmos/crypto/ed25519/keys.js';
import { ProposalStatus, VoteOption } from 'cosmjs-types/cosmos/gov/v1/gov.js';
import { QueryClientImpl as GovV1Query } from 'cosmjs-types/cosmos/gov/v1/query.js';
import { QueryClientImpl as StakingQuery } from 'cosmjs-types/cosmos/staking/v1beta1/query.js';
import { BondStatus } from 'cosmjs-types/cosmos/staking/v1beta1/staking.js';

import { consensusAddress } from '../../src/chain/consensus-key.js';
import { bech32Decode, bech32Encode } from '../../src/util/bech32.js';
import { grpcError, grpcRpc } from '../support/grpc-client.js';
import { cli, proposeUpgrade, simFixture, startNode, waitForProposal } from '../support/node-harness.js';

test('staking validators with their consensus keys, and a proposal voted by other validators then by this one', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome(['--voting-period', '15s', '--deposit-period', '15s', '--sim-validators', 'alice=300000,bob=200000']);
  const bin = fx.bin('genesis');
  const node = await startNode(t, bin, home);
  await node.waitForHeight(2);
  const address = async (name: string) => (await cli(bin, ['keys', 'show', name, '-a', '--home', home])).stdout.trim();
  const [validator, alice, bob] = [await address('validator'), await address('alice'), await address('bob')];
  const valoper = bech32Encode('cosmosvaloper', bech32Decode(validator).bytes);
  const ownKey = JSON.parse(await readFile(path.join(home, 'config', 'priv_validator_key.json'), 'utf8')).pub_key;

  const { client, rpc } = grpcRpc(node.addresses.grpc);
  t.after(() => client.close());
  const comet = await Comet38Client.connect(node.addresses.rpc.replace(/^tcp:/, 'http:'));
  t.after(() => comet.disconnect());
  const cosmjs = QueryClient.withExtensions(comet, setupGovExtension, setupStakingExtension);

  // gRPC: three bonded validators; this home's is found by its consensus key, as the RPC status names it.
  const staking = new StakingQuery(rpc);
  const all = (await staking.Validators({ status: '', pagination: undefined })).validators;
  assert.equal(all.length, 3);
  const own = all.find((v) => v.operatorAddress === valoper);
  assert.ok(own, `no validator ${valoper} in ${all.map((v) => v.operatorAddress).join(', ')}`);
  assert.equal(own.consensusPubkey?.typeUrl, '/cosmos.crypto.ed25519.PubKey');
  const key = Buffer.from(PubKey.decode(own.consensusPubkey?.value ?? new Uint8Array()).key);
  assert.equal(key.toString('base64'), ownKey.value);
  const status = (await node.http('rpc', '/status')).body.result.validator_info;
  assert.equal(consensusAddress(key), status.address);
  assert.deepEqual([own.status, own.jailed, own.tokens, own.description.moniker], [BondStatus.BOND_STATUS_BONDED, false, '1000000000000', 'validator']);
  assert.equal(all.filter((v) => Buffer.from(PubKey.decode(v.consensusPubkey?.value ?? new Uint8Array()).key).equals(key)).length, 1);
  assert.equal((await staking.Validator({ validatorAddr: valoper })).validator?.operatorAddress, valoper);
  const missing = bech32Encode('cosmosvaloper', Buffer.alloc(20, 7));
  const notFound = await grpcError(staking.Validator({ validatorAddr: missing }));
  assert.deepEqual([notFound.code, notFound.details], [5, `validator ${missing} not found`]);
  const badStatus = await grpcError(staking.Validators({ status: 'BONDED', pagination: undefined }));
  assert.deepEqual([badStatus.code, badStatus.details], [3, 'invalid validator status BONDED']);

  // abci_query, through CosmJS's staking extension: the key decodes to the priv_validator_key.json shape.
  const bonded = await cosmjs.staking.validators('BOND_STATUS_BONDED');
  assert.equal(bonded.validators.length, 3);
  assert.equal((await cosmjs.staking.validators('BOND_STATUS_UNBONDED')).validators.length, 0);
  const viaAbci = (await cosmjs.staking.validator(valoper)).validator;
  assert.deepEqual(decodePubkey(viaAbci.consensusPubkey ?? { typeUrl: '', value: new Uint8Array() }), ownKey);

  // REST: the gateway's field names.
  const rest = await node.http('api', `/cosmos/staking/v1beta1/validators/${valoper}`);
  assert.equal(rest.status, 200, JSON.stringify(rest.body));
  assert.deepEqual(Object.keys(rest.body.validator), [
    'operator_address',
    'consensus_pubkey',
    'jailed',
    'status',
    'tokens',
    'delegator_shares',
    'description',
    'unbonding_height',
    'unbonding_time',
    'commission',
    'min_self_delegation',
    'unbonding_on_hold_ref_count',
    'unbonding_ids',
  ]);
  assert.deepEqual(rest.body.validator.consensus_pubkey, { '@type': '/cosmos.crypto.ed25519.PubKey', key: ownKey.value });
  assert.deepEqual([rest.body.validator.status, rest.body.validator.delegator_shares], ['BOND_STATUS_BONDED', '1000000000000.000000000000000000']);
  assert.deepEqual(Object.keys(rest.body.validator.commission.commission_rates), ['rate', 'max_rate', 'max_change_rate']);
  const list = await node.http('api', '/cosmos/staking/v1beta1/validators?status=BOND_STATUS_BONDED&pagination.limit=2');
  assert.deepEqual([list.body.validators.length, list.body.pagination.total], [2, '0']);
  assert.equal(typeof list.body.pagination.next_key, 'string');

  // A proposal in its voting period: alice votes yes, bob no; this validator has not voted yet.
  const proposal = await proposeUpgrade(bin, home, { name: 'v2', height: (await node.height()) + 5000, info: fx.built.versions.v2?.info });
  for (const [who, option] of [
    ['alice', 'yes'],
    ['bob', 'no'],
  ] as const) {
    const vote = await cli(bin, ['tx', 'gov', 'vote', proposal.id, option, '--from', who, '--home', home]);
    assert.equal(vote.code, 0, vote.stderr);
  }
  const gov = new GovV1Query(rpc);
  const voting = await gov.Proposals({ proposalStatus: ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD, voter: '', depositor: '', pagination: undefined });
  assert.deepEqual(
    voting.proposals.map((p) => p.id),
    [BigInt(proposal.id)],
  );
  assert.ok(voting.proposals[0]?.votingEndTime !== undefined);
  assert.deepEqual((await gov.TallyResult({ proposalId: BigInt(proposal.id) })).tally, {
    yesCount: '300000',
    abstainCount: '0',
    noCount: '200000',
    noWithVetoCount: '0',
  });
  const aliceVote = (await gov.Vote({ proposalId: BigInt(proposal.id), voter: alice })).vote;
  assert.deepEqual(aliceVote?.options, [{ option: VoteOption.VOTE_OPTION_YES, weight: '1.000000000000000000' }]);
  assert.deepEqual(new Set((await cosmjs.gov.votes(proposal.id)).votes.map((v) => v.voter)), new Set([alice, bob]));
  const notVoted = await grpcError(gov.Vote({ proposalId: BigInt(proposal.id), voter: validator }));
  assert.equal(notVoted.details, `voter: ${validator} not found for proposal: ${proposal.id}`);
  const restTally = await node.http('api', `/cosmos/gov/v1/proposals/${proposal.id}/tally`);
  assert.deepEqual(restTally.body, { tally: { yes_count: '300000', abstain_count: '0', no_count: '200000', no_with_veto_count: '0' } });

  // This validator votes yes: with its power the proposal passes (15 s of voting leave room for all of the above on a loaded machine).
  const ownVote = await cli(bin, ['tx', 'gov', 'vote', proposal.id, 'yes', '--from', 'validator', '--home', home]);
  assert.equal(ownVote.code, 0, ownVote.stderr);
  const passed = await waitForProposal(bin, home, proposal.id, /PASSED|FAILED|REJECTED/);
  assert.deepEqual([passed.status, passed.final_tally_result.yes_count, passed.final_tally_result.no_count], ['PROPOSAL_STATUS_PASSED', '1300000', '200000']);
});
