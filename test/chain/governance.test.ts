/**
 * The governance reader against the simulated node (real processes): upgrade proposals in their voting
 * period with their tallies, this validator found from its consensus key, its vote before and after it
 * votes, and the gov params — read through gRPC and through abci_query with gRPC off, the same answers;
 * on a chain with gov v1 and on one that serves v1beta1 only.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

import { cli, proposeCancel, proposeUpgrade, simFixture, startNode, waitFor } from '@chainvisor/simd/testing';

import { type ChainAddresses, type ChainClient, createChainReader, createGovReader, createGrpcClient, createRpcClient } from '../../src/chain/index.js';

const info = '{"binaries":{"any":"https://example.invalid/simd?checksum=sha256:00"}}';

async function vote(bin: string, home: string, id: string, option: string, from: string): Promise<void> {
  const r = await cli(bin, ['tx', 'gov', 'vote', id, option, '--from', from, '--home', home, '--yes']);
  assert.equal(r.code, 0, `vote ${option} --from ${from}: ${r.stdout}\n${r.stderr}`);
}

/** The address priv_validator_key.json gives this node's consensus key (as CometBFT shows it). */
async function consensusAddress(home: string): Promise<string> {
  const key = JSON.parse(await readFile(path.join(home, 'config', 'priv_validator_key.json'), 'utf8')) as { address: string };
  return key.address;
}

test('gov v1: upgrade proposals with their tallies, the validator, its vote and the params, over gRPC and over abci_query', async (t) => {
  const sim = await simFixture(t);
  const bin = sim.bin('genesis');
  const home = await sim.initHome(['--voting-period', '120s', '--deposit-period', '45s', '--sim-validators', 'alice=300000,bob=200000']);
  const node = await startNode(t, bin, home);
  const grpc = createGrpcClient({ address: node.addresses.grpc });
  const rpc = createRpcClient({ address: node.addresses.rpc });
  t.after(() => (grpc.close(), rpc.close()));
  await waitFor(async () => (await grpc.latestHeight().catch(() => 0)) >= 2, 'the first blocks');
  const height = (await grpc.latestHeight()) + 100_000;

  // An upgrade as a v1 message, one as legacy content (MsgExecLegacyContent), and a cancel, which is no upgrade.
  const { id: first } = await proposeUpgrade(bin, home, { name: 'v2', height, info, extra: ['--no-validate'] });
  const { id: legacy } = await proposeUpgrade(bin, home, { name: 'v3', height: height + 1, info, extra: ['--no-validate', '--legacy'] });
  await proposeCancel(bin, home, { summary: 's' });
  await vote(bin, home, first, 'yes', 'alice');
  await vote(bin, home, first, 'no', 'bob');

  const validator = (await cli(bin, ['keys', 'show', 'validator', '-a', '--home', home])).stdout.trim();
  for (const client of [grpc, rpc]) {
    const gov = createGovReader(client);
    const proposals = await gov.upgradeProposals();
    assert.deepEqual(proposals.problems, [], client.describe());
    assert.deepEqual(
      proposals.map((p) => ({ ...p, votingEndMs: typeof p.votingEndMs })),
      [
        {
          id: first,
          title: 'upgrade v2',
          plan: { name: 'v2', height, info },
          votingEndMs: 'number',
          tally: { yes: 0.6, no: 0.4, abstain: 0, noWithVeto: 0 },
          gov: 'v1',
        },
        {
          id: legacy,
          title: 'upgrade v3',
          plan: { name: 'v3', height: height + 1, info },
          votingEndMs: 'number',
          tally: { yes: 0, no: 0, abstain: 0, noWithVeto: 0 },
          gov: 'v1',
        },
      ],
      client.describe(),
    );
    const end = proposals[0]?.votingEndMs as number;
    assert.ok(end > Date.now() + 60_000 && end < Date.now() + 121_000, `the vote ends in about 120 s: ${new Date(end).toISOString()}`);

    const found = await gov.validatorByConsensusAddress((await consensusAddress(home)).toLowerCase());
    assert.equal(found?.account, validator, client.describe());
    assert.match(found?.operator ?? '', /^cosmosvaloper1/);
    assert.equal(found?.moniker, 'validator');
    assert.equal(await gov.validatorByConsensusAddress('00'.repeat(20)), undefined);

    assert.equal(await gov.vote(first, validator), 'none', client.describe());
    assert.equal(await gov.vote(first, (await cli(bin, ['keys', 'show', 'bob', '-a', '--home', home])).stdout.trim()), 'no');
    assert.deepEqual(await gov.params(), { votingPeriodMs: 120_000, depositPeriodMs: 45_000, gov: 'v1' });
  }

  await vote(bin, home, first, 'no_with_veto', 'validator');
  // gRPC off: the chain reader asks the RPC only, and the answers are the same.
  const addresses: ChainAddresses = {
    grpc: { address: node.addresses.grpc, enabled: false, source: 'config/app.toml [grpc] enable' },
    rpc: { address: node.addresses.rpc, source: 'test' },
  };
  const reader = createChainReader({ addresses });
  t.after(() => reader.close());
  for (const client of [grpc, reader] as ChainClient[]) {
    const gov = createGovReader(client);
    assert.equal(await gov.vote(first, validator), 'no_with_veto', client.describe());
    const tally = (await gov.upgradeProposals())[0]?.tally;
    assert.ok(tally !== null && tally !== undefined && tally.noWithVeto > 0 && tally.noWithVeto < 1, JSON.stringify(tally));
  }
  assert.equal(reader.answeredBy(), `the node's RPC at ${node.addresses.rpc}`);
});

test('gov v1beta1 only: the same readings through v1beta1, over gRPC and over abci_query', async (t) => {
  const sim = await simFixture(t);
  const bin = sim.bin('genesis');
  const home = await sim.initHome(['--voting-period', '90s', '--deposit-period', '30s', '--sim-gov-v1beta1-only', '--sim-validators', 'alice=100']);
  const node = await startNode(t, bin, home);
  const grpc = createGrpcClient({ address: node.addresses.grpc });
  const rpc = createRpcClient({ address: node.addresses.rpc });
  t.after(() => (grpc.close(), rpc.close()));
  await waitFor(async () => (await grpc.latestHeight().catch(() => 0)) >= 2, 'the first blocks');
  const height = (await grpc.latestHeight()) + 100_000;
  const { id } = await proposeUpgrade(bin, home, { name: 'v2', height, info, extra: ['--no-validate', '--legacy'] });
  const validator = (await cli(bin, ['keys', 'show', 'validator', '-a', '--home', home])).stdout.trim();
  const alice = (await cli(bin, ['keys', 'show', 'alice', '-a', '--home', home])).stdout.trim();
  await vote(bin, home, id, 'no', 'alice');

  for (const client of [grpc, rpc]) {
    const gov = createGovReader(client);
    const proposals = await gov.upgradeProposals();
    assert.deepEqual(proposals.problems, []);
    assert.deepEqual(
      proposals.map((p) => [p.id, p.title, p.plan, p.tally, p.gov]),
      [[id, 'upgrade v2', { name: 'v2', height, info }, { yes: 0, no: 1, abstain: 0, noWithVeto: 0 }, 'v1beta1']],
      client.describe(),
    );
    assert.equal(typeof proposals[0]?.votingEndMs, 'number');
    assert.deepEqual(await gov.params(), { votingPeriodMs: 90_000, depositPeriodMs: 30_000, gov: 'v1beta1' });
    assert.equal(await gov.vote(id, validator), 'none');
    assert.equal(await gov.vote(id, alice), 'no');
    assert.equal((await gov.validatorByConsensusAddress(await consensusAddress(home)))?.account, validator);
  }
});
