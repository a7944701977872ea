/**
 * The twin check against a network RPC that does not play fair (issue #44), through `chainvisor run`
 * on a simulated validator home: an RPC that trickles its answers holds no reading past
 * CHAINVISOR_TWIN_TIMEOUT and the next RPC takes over; answers of another chain or of a height not
 * asked are failed readings, never a twin (84); huge answers keep `run` under 250 MB.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { waitFor } from '@chainvisor/simd/testing';

import { type ChainvisorSim, chainvisorSim, type Running } from '../support/chainvisor-sim.js';
import { type FakeNetwork, startFakeNetwork } from '../support/fake-network.js';

/** The validator home runs with peers and does not sign: its signing state stays at 0. */
const quietValidator = ['--sim-peers-power', '3000000', '--sim-not-signing'];

interface LogLine {
  event?: string;
  msg?: string;
  [field: string]: unknown;
}

/** A twin-unchecked line while the node runs (its sentence says so; one at a start says the node starts without it). */
const whileRunning = (l: LogLine) => /; the node keeps running, unwatched until the network answers$/.test(String(l.msg));
const atAStart = (l: LogLine) => /; starting the node without it$/.test(String(l.msg));

const eventsIn = (run: Running, event: string): LogLine[] =>
  run
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine)
    .filter((l) => l.event === event);

async function setup(t: TestContext, height = 3): Promise<{ sim: ChainvisorSim; address: string; network: () => Promise<FakeNetwork> }> {
  const sim = await chainvisorSim(t, ['genesis'], { CHAINVISOR_PLAN_POLL_INTERVAL: '0s' });
  const key = JSON.parse(await fs.readFile(path.join(sim.home, 'config', 'priv_validator_key.json'), 'utf8')) as { address: string };
  return { sim, address: key.address, network: () => startFakeNetwork(t, { height, chainId: 'sim-1', validator: key.address }) };
}

/** The peak resident memory of a live process (VmHWM), in MiB. */
async function peakMiB(pid: number): Promise<number> {
  const kib = /^VmHWM:\s+(\d+) kB$/m.exec(await fs.readFile(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kib) / 1024;
}

test('a network RPC that trickles its answers: each reading ends at CHAINVISOR_TWIN_TIMEOUT, twin-unchecked after 3, status unchecked', async (t) => {
  const { sim, network } = await setup(t);
  const net = await network();
  const run = sim.run(quietValidator, { CHAINVISOR_NETWORK_RPC: net.rpc, CHAINVISOR_TWIN_TIMEOUT: '2s' });
  await run.nodeOf('genesis');
  assert.match(String(eventsIn(run, 'twin-checked')[0]?.msg), /^twin check clear/, run.output());
  const since = performance.now();
  net.trickle = true;
  await waitFor(() => eventsIn(run, 'twin-unchecked').length > 0, 'the twin-unchecked warning', 30_000);
  const took = performance.now() - since;
  // Three readings in a row, each at most the deadline, a reading every second (the fake's block time) between them
  // (with room for a loaded machine; a trickled answer read whole would take minutes).
  assert.ok(took < 3 * (2000 + 1000) + 8000, `the warning after ${Math.round(took)} ms`);
  const [warning] = eventsIn(run, 'twin-unchecked');
  assert.ok(warning !== undefined && whileRunning(warning), warning?.msg);
  assert.match(String(warning?.msg), /does not answer \(.*no answer within 2000 ms\)/);
  const trickled = net.requests.filter((r) => r.at >= since && r.closedAt !== undefined);
  assert.ok(trickled.length >= 3, JSON.stringify(net.requests));
  for (const r of trickled) assert.ok((r.closedAt as number) - r.at < 2000 + 2000, `${r.url} held ${Math.round((r.closedAt as number) - r.at)} ms`);
  const status = JSON.parse((await sim.cv(['status', '--output', 'json'])).stdout) as { twinCheck: { state: string } };
  assert.equal(status.twinCheck.state, 'unchecked');
  assert.equal(await run.stop(), 0);
});

test('two network RPCs, one trickling: the other takes over at the next reading and catches the twin (84)', async (t) => {
  const { sim, network } = await setup(t);
  const [slow, honest] = [await network(), await network()];
  const run = sim.run(quietValidator, { CHAINVISOR_NETWORK_RPC: `${slow.rpc},${honest.rpc}`, CHAINVISOR_TWIN_TIMEOUT: '2s' });
  await run.nodeOf('genesis');
  assert.match(String(eventsIn(run, 'twin-checked')[0]?.msg), /^twin check clear/, run.output());
  const since = performance.now();
  slow.trickle = true;
  // Meanwhile the key signs on the network, as the honest RPC shows.
  honest.height = 6;
  honest.signedAt = (h) => h >= 5;
  const code = await Promise.race([run.exit, new Promise((resolve) => setTimeout(resolve, 30_000, 'still running'))]);
  assert.equal(code, 84, run.output());
  assert.ok(performance.now() - since < 15_000, `stopped ${Math.round(performance.now() - since)} ms after the RPC began to trickle`);
  const [found] = eventsIn(run, 'key-in-use');
  assert.equal(found?.seenHeight, 6);
  assert.equal(found?.rpc, `${honest.rpc}/`);
});

test('commits whose headers name another chain: a failed reading of that RPC, never a twin (before the start and while running)', async (t) => {
  const { sim, network } = await setup(t);
  const net = await network();
  net.commitChainId = 'other-9';
  net.signedAt = () => true;
  const run = sim.run(quietValidator, { CHAINVISOR_NETWORK_RPC: net.rpc, CHAINVISOR_TWIN_TIMEOUT: '5s' });
  await run.nodeOf('genesis');
  const [atStart] = eventsIn(run, 'twin-unchecked');
  assert.ok(atStart !== undefined && atAStart(atStart), run.output());
  assert.match(String(atStart?.msg), /did not give the commit of block \d+: its header names chain "other-9", not this home's "sim-1"/);
  net.height = 8;
  await waitFor(() => eventsIn(run, 'twin-unchecked').some(whileRunning), 'the warning while the node runs', 20_000);
  assert.equal(eventsIn(run, 'key-in-use').length, 0);
  assert.equal(run.exited(), false);
  assert.equal(await run.stop(), 0);
});

test('commits claiming height 999999999999999 when asked for another: a failed reading, never a twin', async (t) => {
  const { sim, network } = await setup(t);
  const net = await network();
  net.commitHeight = 999_999_999_999_999;
  net.signedAt = () => true;
  const run = sim.run(quietValidator, { CHAINVISOR_NETWORK_RPC: net.rpc, CHAINVISOR_TWIN_TIMEOUT: '5s' });
  await run.nodeOf('genesis');
  const [atStart] = eventsIn(run, 'twin-unchecked');
  assert.ok(atStart !== undefined && atAStart(atStart), run.output());
  assert.match(String(atStart?.msg), /did not give the commit of block \d+: it answered with the commit of block 999999999999999/);
  net.height = 8;
  await waitFor(() => eventsIn(run, 'twin-unchecked').some(whileRunning), 'the warning while the node runs', 20_000);
  assert.equal(eventsIn(run, 'key-in-use').length, 0);
  assert.equal(run.exited(), false);
  assert.equal(await run.stop(), 0);
});

/** An answer of about 8 MiB, the network reader's size bound: `unit` repeated between `head` and `tail`. */
const eightMiB = (head: string, unit: string, tail: string) =>
  `{"jsonrpc":"2.0","id":-1,"result":${head}${unit.repeat(Math.floor((8 * 1024 * 1024 - 200) / unit.length) - 1)}${unit.slice(0, -1)}${tail}}`;

const hostile: Record<string, string> = {
  '8 MiB of [[],[],…]': eightMiB('{"signed_header":[', '[],', ']}'),
  'a commit of 150,000 signatures': `{"jsonrpc":"2.0","id":-1,"result":{"signed_header":{"header":{"chain_id":"sim-1","time":"2026-01-01T00:00:00Z"},"commit":{"height":"1000","signatures":[${Array.from({ length: 150_000 }, () => '{"block_id_flag":1}').join(',')}]}}}}`,
  '8 MiB of numbers as signatures': eightMiB(
    '{"signed_header":{"header":{"chain_id":"sim-1","time":"2026-01-01T00:00:00Z"},"commit":{"height":"1000","signatures":[',
    '0,',
    ']}}}',
  ),
};

for (const [name, body] of Object.entries(hostile)) {
  test(`a network RPC answering ${name} to every commit (CHAINVISOR_TWIN_BLOCKS=1000): failed readings, run stays under 250 MB`, async (t) => {
    const { sim, network } = await setup(t, 1000);
    const net = await network();
    net.raw = (route) => (route === 'commit' ? body : undefined);
    const run = sim.run(quietValidator, { CHAINVISOR_NETWORK_RPC: net.rpc, CHAINVISOR_TWIN_BLOCKS: '1000', CHAINVISOR_TWIN_TIMEOUT: '10s' });
    await run.nodeOf('genesis');
    assert.match(String(eventsIn(run, 'twin-unchecked')[0]?.msg), /twin check not made: .*did not give the commit of block/, run.output());
    // The readings while the node runs get the same answers: a few of them too.
    net.height = 1001;
    await waitFor(() => net.requests.filter((r) => r.url.startsWith('/commit')).length >= 4, 'readings while the node runs', 20_000);
    const peak = await peakMiB(run.proc.pid as number);
    console.log(`${name}: peak RSS of run ${peak.toFixed(0)} MiB`);
    assert.ok(peak < 250, `run's peak RSS ${peak.toFixed(0)} MiB`);
    assert.equal(eventsIn(run, 'key-in-use').length, 0);
    assert.equal(await run.stop(), 0);
  });
}
