/**
 * The proposal watch's events with a gov reader that answers what the test says (issue #45):
 * `upgrade-proposed` once per proposal (a restart does not say it again), `vote-missing` once when the
 * validator has not voted within CHAINVISOR_VOTE_REMINDER of the end (never with `off`, never after a
 * vote), `proposal-problem` once per distinct problem; the list on the bus for status and metrics; a
 * node without a key has a `null` vote. The binary check fetches nothing with CHAINVISOR_STAGE_PROPOSALS=off.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { pino } from 'pino';

import type { ChainAddresses, ChainClient, GovReader, ProposedUpgrade } from '../../../src/chain/index.js';
import { loadConfig } from '../../../src/config/index.js';
import type { Downloader } from '../../../src/download/index.js';
import { layoutFor } from '../../../src/home/layout/index.js';
import { createEventBus, type ProposalView, type SupervisorEvent, type VoteChoice } from '../../../src/shared/events/index.js';
import { type RehearsalOutcome, startGovernance } from '../../../src/supervisor/governance/index.js';
import { waitFor } from '../../support/home.js';

const address = '0123456789ABCDEF0123456789ABCDEF01234567';
const sha = 'a'.repeat(64);

function proposal(id: string, options: { endsInMs: number; info?: string; name?: string }): ProposedUpgrade {
  return {
    id,
    title: `upgrade ${id}`,
    plan: {
      name: options.name ?? `v${id}`,
      height: 1_000_000,
      info: options.info ?? JSON.stringify({ binaries: { any: `https://example.org/simd?checksum=sha256:${sha}` } }),
    },
    votingEndMs: Date.now() + options.endsInMs,
    tally: { yes: 0.5, no: 0.5, abstain: 0, noWithVeto: 0 },
    gov: 'v1',
  };
}

interface World {
  proposals: ProposedUpgrade[];
  votes: Map<string, VoteChoice>;
  validator: boolean;
  asked: string[];
}

function fakeGov(world: World): GovReader {
  return {
    upgradeProposals: async () => Object.assign([...world.proposals], { problems: [] }),
    params: async () => ({ votingPeriodMs: 172_800_000, depositPeriodMs: 86_400_000, gov: 'v1' }),
    vote: async (id, voter) => {
      world.asked.push(`${id}:${voter}`);
      return world.votes.get(id) ?? 'none';
    },
    validatorByConsensusAddress: async (a) =>
      world.validator && a === address ? { operator: 'cosmosvaloper1x', account: 'cosmos1x', moniker: 'val-1' } : undefined,
  };
}

// A chain that moves: each reading a block later, so the block time is known from the second reading.
let height = 100;
const client = {
  address: 'x',
  describe: () => 'the node',
  currentPlan: async () => null,
  latestHeight: async () => ++height,
  close: () => undefined,
} as unknown as ChainClient;
const addresses = { rpc: { address: 'tcp://127.0.0.1:9' }, grpc: { enabled: false } } as unknown as ChainAddresses;

async function home(t: TestContext, key: boolean): Promise<string> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-gov-'));
  t.after(() => fs.rm(root, { recursive: true, force: true }));
  await fs.mkdir(path.join(root, 'config'), { recursive: true });
  if (key) await fs.writeFile(path.join(root, 'config', 'priv_validator_key.json'), JSON.stringify({ address, pub_key: {}, priv_key: {} }));
  return root;
}

async function start(
  root: string,
  world: World,
  env: Record<string, string> = {},
  download?: Downloader,
  rehearsals?: () => Promise<readonly RehearsalOutcome[]>,
) {
  const { config } = loadConfig({ env: { DAEMON_HOME: root, DAEMON_NAME: 'simd', CHAINVISOR_PROPOSAL_POLL_INTERVAL: '1s', ...env } });
  const events = createEventBus();
  const seen: SupervisorEvent[] = [];
  events.on((e) => void seen.push(e));
  const governance = await startGovernance({
    config,
    layout: layoutFor(config),
    logger: pino({ level: 'silent' }),
    events,
    client,
    addresses,
    gov: fakeGov(world),
    ...(download ? { download } : {}),
    ...(rehearsals ? { rehearsals } : {}),
  });
  const last = () => seen.filter((e) => e.event === 'proposals').at(-1)?.data?.proposals as ProposalView[] | undefined;
  const named = (name: string) => seen.filter((e) => e.event === name);
  return { governance, events, seen, last, named };
}

/** Fetching allowed for any public host. */
const fetchAny = { CHAINVISOR_STAGE_PROPOSALS: 'any', DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true' };

/** Stands for the download: records which plan was fetched. */
function recordingDownload(fetched: string[]): Downloader {
  return async (o) => {
    fetched.push(o.target.plan.name);
    return { binary: o.target.binary };
  };
}

test('announced once per proposal, across a restart; the vote looked up for the validator; reminded once, near the end only', async (t) => {
  const root = await home(t, true);
  const world: World = {
    proposals: [proposal('1', { endsInMs: 3_600_000 }), proposal('2', { endsInMs: 3 * 86_400_000 })],
    votes: new Map(),
    validator: true,
    asked: [],
  };
  const first = await start(root, world);
  await waitFor(() => first.named('upgrade-proposed').length === 2, 'both announced');
  await waitFor(() => first.named('vote-missing').length === 1, 'one reminder');
  // Proposal 1 ends in an hour (within 24 h): reminded; proposal 2 ends in 3 days: not yet.
  assert.equal(first.named('vote-missing')[0]?.data?.proposal, '1');
  assert.equal(first.named('vote-missing')[0]?.data?.voter, 'cosmos1x');
  const list = first.last();
  assert.deepEqual(
    list?.map((p) => [p.id, p.vote, p.binary.state]),
    [
      ['1', 'none', 'unchecked'],
      ['2', 'none', 'unchecked'],
    ],
  );
  assert.ok(world.asked.includes('1:cosmos1x'));
  // Downloads are off (the default): the Info was checked, and says why nothing was fetched.
  await waitFor(() => first.last()?.[0]?.binary.checksum === `sha256:${sha}`, 'the checksum read from the Info');
  assert.match(first.last()?.[0]?.binary.problem ?? '', /DAEMON_ALLOW_DOWNLOAD_BINARIES is false/);
  assert.equal(first.last()?.[0]?.binary.source, 'https://example.org/simd');
  await first.governance.stop();

  // The validator votes on 1; a new chainvisor says nothing again of either.
  world.votes.set('1', 'yes');
  const second = await start(root, world);
  await waitFor(() => second.last()?.[0]?.vote === 'yes', 'the vote seen');
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(second.named('upgrade-proposed').length, 0, 'not announced again');
  assert.equal(second.named('vote-missing').length, 0, 'not reminded again');
  await second.governance.stop();
});

test('no reminder with CHAINVISOR_VOTE_REMINDER=off; a full node without a key has no vote to look up', async (t) => {
  const world: World = { proposals: [proposal('7', { endsInMs: 60_000 })], votes: new Map(), validator: true, asked: [] };
  const off = await start(await home(t, true), world, { CHAINVISOR_VOTE_REMINDER: 'off' });
  await waitFor(() => off.last()?.[0]?.vote === 'none', 'the list');
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(off.named('vote-missing').length, 0);
  await off.governance.stop();

  const keyless = await start(await home(t, false), world);
  await waitFor(() => keyless.last() !== undefined, 'the list');
  assert.equal(keyless.last()?.[0]?.vote, null);
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(keyless.named('vote-missing').length, 0, 'no reminder without a vote to look up');
  await keyless.governance.stop();
});

test('a binary the Info cannot give: proposal-problem once, however often it is read; the list says the problem', async (t) => {
  const world: World = {
    proposals: [
      proposal('3', { endsInMs: 86_400_000, info: JSON.stringify({ binaries: { 'plan9/mips': `https://example.org/simd?checksum=sha256:${sha}` } }) }),
    ],
    votes: new Map(),
    validator: false,
    asked: [],
  };
  const run = await start(await home(t, true), world);
  await waitFor(() => run.named('proposal-problem').length === 1, 'proposal-problem');
  await new Promise((r) => setTimeout(r, 2500));
  assert.equal(run.named('proposal-problem').length, 1, 'once');
  const [p] = run.last() ?? [];
  assert.equal(p?.binary.state, 'problem');
  assert.match(p?.binary.problem ?? '', /no binary for/);
  assert.match(String(run.named('proposal-problem')[0]?.text), /Vote no or tell the proposer before the vote ends/);
  await run.governance.stop();
});

test('CHAINVISOR_STAGE_PROPOSALS=any: at most three proposals are fetched while voted; the fourth waits, saying why', async (t) => {
  const root = await home(t, true);
  const world: World = {
    proposals: ['11', '12', '13', '14'].map((id) => proposal(id, { endsInMs: 5 * 86_400_000 })),
    votes: new Map(),
    validator: true,
    asked: [],
  };
  const fetched: string[] = [];
  const { governance, last } = await start(root, world, fetchAny, recordingDownload(fetched));
  // Stopped before the home is removed (its record is written until it stops).
  try {
    await waitFor(() => last()?.filter((p) => p.binary.state === 'staged').length === 3 && last()?.[3]?.binary.problem !== undefined, 'three staged');
    assert.deepEqual(fetched, ['v11', 'v12', 'v13']);
    assert.match(last()?.[3]?.binary.problem ?? '', /the binaries of 3 proposals still voted were fetched already/);
    // One leaves its voting period: the fourth is fetched at the next reading.
    world.proposals = world.proposals.slice(1);
    await waitFor(() => fetched.includes('v14'), 'the fourth fetched');
  } finally {
    await governance.stop();
  }
});

test('CHAINVISOR_STAGE_PROPOSALS=any fetches from public https hosts only: a proposer pointing at this machine or a metadata address is refused, nothing fetched', async (t) => {
  const root = await home(t, true);
  const info = (url: string) => JSON.stringify({ binaries: { any: `${url}?checksum=sha256:${sha}` } });
  const world: World = {
    proposals: [
      proposal('21', { endsInMs: 86_400_000, info: info('http://127.0.0.1:26657/unsafe_flush_mempool') }),
      proposal('22', { endsInMs: 86_400_000, info: info('https://169.254.169.254/latest/meta-data') }),
    ],
    votes: new Map(),
    validator: true,
    asked: [],
  };
  const fetched: string[] = [];
  const { governance, named } = await start(root, world, fetchAny, recordingDownload(fetched));
  try {
    await waitFor(() => named('proposal-problem').length === 2, 'both refused', 30_000);
    for (const p of named('proposal-problem')) assert.match(String(p.data?.problem), /public https hosts/);
    assert.deepEqual(fetched, []);
  } finally {
    await governance.stop();
  }
});

test("at the halt, a proposal's download under way is ended (the binary step may wait for its folder); it is taken up after the new node starts", async (t) => {
  const root = await home(t, true);
  const world: World = { proposals: [proposal('31', { endsInMs: 86_400_000 })], votes: new Map(), validator: true, asked: [] };
  const attempts: AbortSignal[] = [];
  // A download that lasts until it is ended.
  const hanging: Downloader = (o) => {
    const signal = o.signal as AbortSignal;
    attempts.push(signal);
    return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
  };
  const { governance, events } = await start(root, world, fetchAny, hanging);
  try {
    await waitFor(() => attempts.length === 1, 'the download under way');
    events.emit('upgrade-detected', { upgrade: { name: 'v9', height: 50 }, text: 'halt' });
    await waitFor(() => attempts[0]?.aborted === true, 'the download ended at the halt');
    events.emit('node-started', { text: 'started', data: { pid: 1 } });
    await waitFor(() => attempts.length === 2, 'taken up again after the start', 30_000);
  } finally {
    await governance.stop();
  }
});

test('a staged binary rehearsed before this run: its record is its outcome when the sha256 is the same (a failure a problem, said once)', async (t) => {
  const root = await home(t, true);
  const world: World = {
    proposals: [proposal('41', { endsInMs: 86_400_000 }), proposal('42', { endsInMs: 86_400_000 })],
    votes: new Map(),
    validator: true,
    asked: [],
  };
  const body = '#!/bin/sh\necho staged\n';
  const digest = createHash('sha256').update(body).digest('hex');
  // Stands for the download: the binary written where the staging puts it.
  const writing: Downloader = async (o) => {
    await fs.mkdir(path.dirname(o.target.binary), { recursive: true });
    await fs.writeFile(o.target.binary, body, { mode: 0o755 });
    return { binary: o.target.binary };
  };
  const record = (upgrade: string, result: 'passed' | 'failed', sha256: string): RehearsalOutcome => ({
    upgrade,
    result,
    reason: result === 'failed' ? 'the upgrade handler panicked' : null,
    binary_sha256: sha256,
  });
  // v41's binary failed its rehearsal; v42's record is of another binary, so it is not this one's.
  const rehearsals = async () => [record('v41', 'failed', digest), record('v42', 'passed', 'b'.repeat(64))];
  const { governance, last, named } = await start(root, world, fetchAny, writing, rehearsals);
  try {
    await waitFor(() => last()?.every((p) => p.binary.state !== 'unchecked') === true, 'both checked');
    const [v41, v42] = last() ?? [];
    assert.deepEqual([v41?.binary.state, v41?.binary.problem], ['problem', 'its rehearsal failed: the upgrade handler panicked']);
    assert.equal(v42?.binary.state, 'staged');
    await waitFor(() => named('proposal-problem').length === 1, 'the problem said');
    assert.equal(named('proposal-problem')[0]?.data?.proposal, '41');
  } finally {
    await governance.stop();
  }
});
