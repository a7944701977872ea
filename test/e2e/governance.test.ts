/**
 * Governance under `chainvisor run` on the simulated chain (issue #45, docs/governance.md): an upgrade
 * proposal in its voting period is listed in `status` with its tally and this validator's vote, its
 * binary staged and rehearsed while the vote runs, `vote-missing` sent; once voted and passed, the
 * staged binary is the plan's at the height with no second download. A wrong checksum and a binary
 * whose rehearsal fails are `proposal-problem` before the vote ends, with nothing installed — through
 * gRPC, through the RPC's `abci_query` with gRPC off, and on a chain whose gov is v1beta1 only.
 */
import assert from 'node:assert/strict';
import { access, readlink } from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { upgradeInfoFor } from '@chainvisor/simd';
import { cli, proposeUpgrade, waitFor, waitForProposal } from '@chainvisor/simd/testing';

import { chainvisorSim, heightOf } from '../support/chainvisor-sim.js';
import { serveFiles } from '../support/file-server.js';
import { unusedPort } from '../support/ports.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

interface StatusProposal {
  id: string;
  name: string;
  height: string;
  votingEnd: string | null;
  eta: unknown;
  tally: { yes: number; no: number; abstain: number; noWithVeto: number } | null;
  vote: string | null;
  binary: { state: string; checksum?: string; source?: string; problem?: string };
  tooLateToCancel: Record<string, unknown> | null;
}

async function proposals(cv: (args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>): Promise<StatusProposal[]> {
  const r = await cv(['status', '--output', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { proposals: StatusProposal[] }).proposals;
}

async function vote(bin: string, home: string, id: string, option: string, from: string): Promise<void> {
  const r = await cli(bin, ['tx', 'gov', 'vote', id, option, '--from', from, '--home', home, '--yes']);
  assert.equal(r.code, 0, r.stderr);
}

const voters = ['--sim-validators', 'alice=300000,bob=200000', '--deposit-period', '60s'];

test('a proposal while it is voted: listed with its tally and "not voted", staged and rehearsed, vote-missing sent; voted, passed, and switched with no second download', async (t) => {
  const receiver = await startWebhookReceiver();
  const http = `127.0.0.1:${await unusedPort()}`;
  t.after(() => receiver.close());
  const sim = await chainvisorSim(
    t,
    ['genesis', 'v2'],
    {
      DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true',
      CHAINVISOR_PROPOSAL_POLL_INTERVAL: '1s',
      CHAINVISOR_PLAN_POLL_INTERVAL: '300ms',
      CHAINVISOR_STAGE_PROPOSALS: '127.0.0.1',
      CHAINVISOR_REHEARSE: 'true',
      CHAINVISOR_STAGE_WARN_BLOCKS: '20',
      CHAINVISOR_VOTE_REMINDER: '24h',
      CHAINVISOR_WEBHOOK_URL: receiver.url,
      CHAINVISOR_HTTP_ADDRESS: http,
    },
    // 60 s of voting: room for the commands below and the rehearsal before the validator votes, on a loaded machine.
    ['--voting-period', '60s', ...voters],
  );
  const server = await serveFiles(t, sim.built.out);
  const run = sim.run();
  const live = await run.nodeOf('genesis');
  // 1500 blocks: after the vote's end even at full speed (75 s), and before a cancel could pass even at half speed (150 s).
  const height = (await heightOf(live)) + 1500;
  const bin = sim.bin('genesis');
  const { id } = await proposeUpgrade(bin, sim.home, { name: 'v2', height, info: upgradeInfoFor(sim.built.versions.v2!, server.url) });
  await vote(bin, sim.home, id, 'yes', 'alice');
  await vote(bin, sim.home, id, 'no', 'bob');

  const listed = await waitFor(
    async () => {
      const [p] = await proposals(sim.cv);
      return p?.tally && p.tally.yes > 0 && p.tally.no > 0 ? p : undefined;
    },
    `the proposal in status\n${run.output().slice(-3000)}`,
  );
  assert.equal(listed.id, id);
  assert.equal(listed.name, 'v2');
  assert.equal(listed.height, String(height));
  assert.equal(listed.vote, 'none', run.output().slice(-5000));
  assert.ok(listed.votingEnd !== null && Date.parse(listed.votingEnd) > Date.now());
  // alice 300000 yes, bob 200000 no: the shares of the votes cast.
  assert.equal(listed.tally!.yes, 0.6);
  assert.equal(listed.tally!.no, 0.4);
  const metrics = await (await fetch(`http://${http}/metrics`)).text();
  assert.match(metrics, new RegExp(`^chainvisor_upgrade_proposal_info\\{id="${id}",name="v2",height="${height}"\\} 1$`, 'm'));
  const end = new RegExp(`^chainvisor_upgrade_proposal_voting_end_timestamp_seconds\\{id="${id}"\\} (\\S+)$`, 'm').exec(metrics)?.[1];
  assert.equal(Number(end), Date.parse(listed.votingEnd) / 1000);
  const text = await sim.cv(['status']);
  assert.match(text.stdout, new RegExp(`proposed\\s+#${id} "v2" at height ${height}: not voted, ends in`));

  const hook = await waitFor(() => receiver.delivered().find((r) => r.body.event === 'vote-missing'), 'vote-missing at the webhook');
  assert.equal((hook.body.upgrade as { name: string }).name, 'v2');
  const reminded = hook.body.proposal as { id: string; votingEnd: string; voter: string };
  assert.equal(reminded.id, id);
  assert.equal(reminded.votingEnd, listed.votingEnd);
  assert.match(reminded.voter, /^cosmos1/);
  assert.equal(receiver.delivered().filter((r) => r.body.event === 'upgrade-proposed').length, 1);

  await waitFor(async () => (await proposals(sim.cv))[0]?.binary.state === 'staged' || undefined, `staged\n${run.output().slice(-3000)}`);
  assert.ok(await exists(path.join(sim.home, 'cosmovisor', 'upgrades', 'v2', 'bin', 'simd')));
  assert.ok(server.bytes() > 0);
  await waitFor(async () => (await proposals(sim.cv))[0]?.binary.state === 'rehearsed' || undefined, `rehearsed\n${run.output().slice(-3000)}`, 90_000);

  // Too close to cancel: the vote ends in 60 s, then a deposit (60 s) and a voting period (60 s), while the
  // height is 75–150 s away. status, the event and check-plan say so, with the numbers.
  const [late] = await proposals(sim.cv);
  assert.equal(late?.tooLateToCancel?.votingPeriodSeconds, 60, JSON.stringify(late));
  assert.equal(late?.tooLateToCancel?.depositPeriodSeconds, 60);
  assert.ok(Date.parse(String(late?.tooLateToCancel?.heightAt)) < Date.parse(String(late?.tooLateToCancel?.cancellableUntil)));
  const proposed = receiver.delivered().find((r) => r.body.event === 'upgrade-proposed')!;
  assert.match(String(proposed.body.text), /too late to cancel: .*deposit period 60 s \+ voting period 60 s/);
  const checked = await sim.cv(['check-plan', '--proposal', id]);
  assert.equal(checked.code, 0, checked.stdout + checked.stderr);
  assert.match(checked.stdout, new RegExp(`Proposal #${id} \\(gov v1\\): upgrade v2 at height ${height}`));
  assert.match(checked.stdout, /warning: too late to cancel: .*deposit period 60 s \+ voting period 60 s/);
  assert.match(checked.stdout, /^ok: 1 binary checked/m);
  const missing = await sim.cv(['check-plan', '--proposal', '99']);
  assert.equal(missing.code, 79, missing.stderr);
  assert.match(missing.stderr, /CHAINVISOR_PROPOSAL_NOT_FOUND/);
  const staged = server.bytes();

  await vote(bin, sim.home, id, 'yes', 'validator');
  await waitFor(async () => (await proposals(sim.cv))[0]?.vote === 'yes' || undefined, 'the vote in status');

  await waitFor(async () => (await cli(bin, ['query', 'gov', 'proposal', id, '--home', sim.home])).stdout.includes('PASSED') || undefined, 'passed', 90_000);
  // Blocks slow down on a loaded machine: the height may come a minute or more after the vote.
  const v2 = await run.nodeOf('v2', 150_000);
  await waitFor(async () => (await heightOf(v2).catch(() => 0)) > height, 'v2 past the height', 120_000);
  assert.equal(server.bytes(), staged, 'nothing downloaded after the vote');
  assert.equal(await readlink(path.join(sim.home, 'cosmovisor', 'current')), path.join('upgrades', 'v2'));
  assert.equal(receiver.delivered().filter((r) => r.body.event === 'vote-missing').length, 1, 'reminded once');
  // Voted out of its voting period: no longer listed.
  await waitFor(async () => (await proposals(sim.cv)).length === 0 || undefined, 'the passed proposal no longer listed');
  assert.equal(receiver.delivered().filter((r) => r.body.event === 'proposal-problem').length, 0);
});

type Sim = Awaited<ReturnType<typeof chainvisorSim>>;

async function problemCase(t: TestContext, options: { info: (sim: Sim, url: string) => string; initFlags?: string[]; runFlags?: string[]; legacy?: boolean }) {
  const receiver = await startWebhookReceiver();
  t.after(() => receiver.close());
  const sim = await chainvisorSim(
    t,
    ['genesis', 'v2'],
    {
      DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true',
      CHAINVISOR_PROPOSAL_POLL_INTERVAL: '1s',
      CHAINVISOR_STAGE_PROPOSALS: '127.0.0.1',
      CHAINVISOR_REHEARSE: 'true',
      CHAINVISOR_WEBHOOK_URL: receiver.url,
    },
    ['--voting-period', '120s', ...voters, ...(options.initFlags ?? [])],
    { 'v2-panics': { from: 'v2', handlerPanic: 'always' } },
  );
  const server = await serveFiles(t, sim.built.out);
  const run = sim.run(options.runFlags ?? []);
  const live = await run.nodeOf('genesis');
  const height = (await heightOf(live)) + 8000;
  const bin = sim.bin('genesis');
  const { id } = await proposeUpgrade(bin, sim.home, {
    name: 'v2',
    height,
    info: options.info(sim, server.url),
    ...(options.legacy ? { extra: ['--legacy'] } : {}),
  });
  const hook = await waitFor(
    () => receiver.delivered().find((r) => r.body.event === 'proposal-problem'),
    `proposal-problem\n${run.output().slice(-4000)}`,
    90_000,
  );
  // The status file follows the bus a moment later than the webhook.
  const listed = await waitFor(async () => (await proposals(sim.cv)).find((p) => p.binary.state === 'problem'), 'the problem in status');
  assert.equal(listed?.id, id);
  assert.equal(listed?.vote, 'none');
  assert.ok(Date.parse(listed.votingEnd!) > Date.now(), 'said before the vote ends');
  assert.equal(await readlink(path.join(sim.home, 'cosmovisor', 'current')), 'genesis', 'nothing installed as current');
  assert.equal((await waitForProposal(bin, sim.home, id, /VOTING/)).status !== undefined, true, 'still in its voting period');
  return { sim, hook, listed: listed, run, receiver };
}

/** v2's Info with a checksum that is not its archive's. */
const wrongChecksum = (sim: Sim, url: string) => {
  const v2 = sim.built.versions.v2!;
  return upgradeInfoFor({ ...v2, sha256: { ...v2.sha256, tarGz: '0'.repeat(64) } }, url);
};

test('a proposal whose binary has a wrong checksum: proposal-problem before the vote ends, nothing installed (gRPC off: abci_query)', async (t) => {
  // gRPC off, and the RPC on a port of its own (the harness's is port 0, which nobody can dial).
  const rpc = `tcp://127.0.0.1:${await unusedPort()}`;
  const { sim, hook, listed, run } = await problemCase(t, { info: wrongChecksum, runFlags: ['--grpc.enable=false', '--rpc.laddr', rpc] });
  assert.match(String(hook.body.text), /checksum/i);
  assert.match(listed.binary.problem ?? '', /checksum/i);
  assert.equal(await exists(path.join(sim.home, 'cosmovisor', 'upgrades', 'v2', 'bin', 'simd')), false, 'nothing staged');
  assert.doesNotMatch(run.output(), /"event":"upgrade-applied"/);
});

test('a proposal whose binary fails its rehearsal: proposal-problem before the vote ends, nothing installed as a plan', async (t) => {
  const { sim, hook, listed, run, receiver } = await problemCase(t, { info: (sim, url) => upgradeInfoFor(sim.built.versions['v2-panics']!, url) });
  assert.match(String(hook.body.text), /rehearsal failed/);
  assert.match(listed.binary.problem ?? '', /rehearsal failed/);

  // chainvisor restarted while the vote runs: the binary is not rehearsed again, and its record is its outcome.
  assert.equal(await run.stop(), 0, run.output());
  const again = sim.run();
  await again.nodeOf('genesis');
  const relisted = await waitFor(
    async () => (await proposals(sim.cv)).find((p) => p.id === listed.id && p.binary.state !== 'unchecked'),
    `the proposal listed again\n${again.output().slice(-3000)}`,
    60_000,
  );
  assert.equal(relisted.binary.state, 'problem', JSON.stringify(relisted));
  assert.equal(relisted.binary.problem, listed.binary.problem);
  assert.doesNotMatch(again.output(), /rehearsing upgrade|rehearsal of upgrade "v2" (passed|FAILED)/, 'not rehearsed again');
  assert.equal(receiver.delivered().filter((r) => r.body.event === 'proposal-problem').length, 1, 'said once');
  assert.equal(await again.stop(), 0, again.output());
});

test('a chain whose gov is v1beta1 only: a legacy proposal is listed, its wrong checksum a proposal-problem', async (t) => {
  const { hook, listed } = await problemCase(t, { info: wrongChecksum, initFlags: ['--sim-gov-v1beta1-only'], legacy: true });
  assert.match(String(hook.body.text), /checksum/i);
  assert.equal(listed.name, 'v2');
});
