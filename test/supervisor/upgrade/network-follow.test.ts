/**
 * The follow's decisions (src/supervisor/upgrade/network-follow.ts) against a scripted node: the timing rules that the
 * end-to-end tests on the simulated network (test/e2e/after-upgrade.test.ts) cannot pin down exactly,
 * and what it does with answers a hostile or broken RPC gives (issue #31).
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';

import { ChainAnswerRefusedError, type ConsensusReader, type NodeValidator, type RoundState, type VoteShare } from '../../../src/chain/index.js';
import { createEventBus, type SupervisorEvent } from '../../../src/shared/events/index.js';
import { createLogger } from '../../../src/shared/log.js';
import { startFollow } from '../../../src/supervisor/upgrade/network-follow.js';
import { memoryLogger } from '../../support/download-kit.js';
import { waitFor } from '../../support/home.js';

const self = 'A'.repeat(40);
const peer = 'B'.repeat(40);

function scripted(chain: {
  latest: number;
  power?: number;
  signs?: (h: number) => boolean;
  round?: () => RoundState;
  time?: () => number;
}): ConsensusReader & { closed: boolean } {
  const reader = {
    closed: false,
    validator: async (): Promise<NodeValidator> => ({ address: self, votingPower: chain.power ?? 10, latestHeight: chain.latest }),
    roundState: async (): Promise<RoundState> =>
      chain.round?.() ?? {
        height: chain.latest + 1,
        round: 0,
        step: 4,
        prevotes: { voted: [true, false], power: 10, total: 30, ratio: 1 / 3, overstated: false },
        precommits: { voted: [false, false], power: 0, total: 30, ratio: 0, overstated: false },
      },
    validatorOrder: async () => [self, peer],
    commit: async (height: number) => ({
      height,
      time: chain.time?.() ?? Date.now() - 50,
      signers: new Set(chain.signs?.(height) === false ? [peer] : [self, peer]),
    }),
    close() {
      reader.closed = true;
    },
  };
  return reader;
}

function recorder() {
  const events = createEventBus();
  const seen: SupervisorEvent[] = [];
  events.on((e) => seen.push(e));
  return { events, seen, names: () => seen.map((e) => e.event).filter((n) => n !== 'consensus-round') };
}

const logger = createLogger({ disabled: true });
const upgrade = { name: 'v2', height: 100 };

// The follow's timer does not hold the process (the run loop does): these tests hold it themselves.
let alive: NodeJS.Timeout | undefined;
beforeEach(() => {
  alive = setInterval(() => undefined, 1000);
});
afterEach(() => clearInterval(alive));

test('waiting, then confirmed and signed: the follow ends and closes its reader', async () => {
  const chain = { latest: 99 };
  const reader = scripted(chain);
  const r = recorder();
  const follow = startFollow({ upgrade, switchedAt: Date.now() - 2000, rpcAddress: '', events: r.events, logger, warnMs: 60_000, intervalMs: 20, reader });
  await new Promise((resolve) => setTimeout(resolve, 80));
  const waiting = r.seen.find((e) => e.event === 'network-waiting');
  assert.equal(waiting?.data?.ownPrevote, true);
  assert.equal(waiting?.data?.prevoteRatio, 1 / 3);
  assert.equal(r.seen.filter((e) => e.event === 'network-waiting').length, 1, 'at most every 30 s');
  chain.latest = 100;
  await follow.done;
  assert.deepEqual(r.names(), ['network-waiting', 'upgrade-confirmed']);
  const confirmed = r.seen.at(-1);
  assert.equal(confirmed?.data?.signed, true);
  assert.ok(typeof confirmed?.data?.seconds === 'number' && confirmed.data.seconds > 1.5);
  assert.equal(confirmed?.data?.state, 'confirmed');
  assert.ok(reader.closed);
});

test('absent from the first 3 blocks: confirmed with signed false, then validator-not-signing; the first block it signs after that confirms it signed', async () => {
  const chain = { latest: 103, signs: (h: number) => h >= 106 };
  const reader = scripted(chain);
  const r = recorder();
  const follow = startFollow({ upgrade, switchedAt: Date.now(), rpcAddress: '', events: r.events, logger, warnMs: 60_000, intervalMs: 20, reader });
  await waitFor(() => r.names().includes('validator-not-signing'), 'not signing');
  assert.deepEqual(r.names(), ['upgrade-confirmed', 'validator-not-signing']);
  assert.equal(r.seen[0]?.data?.signed, false);
  // Not signing goes on being watched (issue #35: its alert resolves when it signs, not at the next upgrade).
  chain.latest = 105;
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(r.names(), ['upgrade-confirmed', 'validator-not-signing'], 'still absent from block 105');
  assert.equal(reader.closed, false);
  chain.latest = 106;
  await follow.done;
  assert.deepEqual(r.names(), ['upgrade-confirmed', 'validator-not-signing', 'upgrade-confirmed']);
  const again = r.seen.at(-1);
  assert.equal(again?.data?.signed, true);
  assert.equal(again?.data?.signsAgain, true);
  assert.equal(again?.data?.height, 106);
  assert.equal(again?.text, 'v2: this validator signs again, at height 106');
  assert.ok(reader.closed);
});

test('absent from the first block only: not "not signing"', async () => {
  const reader = scripted({ latest: 103, signs: (h) => h !== 100 });
  const r = recorder();
  await startFollow({ upgrade, switchedAt: Date.now(), rpcAddress: '', events: r.events, logger, warnMs: 60_000, intervalMs: 20, reader }).done;
  assert.deepEqual(r.names(), ['upgrade-confirmed']);
});

test('no voting power: ownPrevote and signed are null, and the follow ends at the confirmation', async () => {
  const chain = { latest: 99, power: 0 };
  const r = recorder();
  const follow = startFollow({
    upgrade,
    switchedAt: Date.now(),
    rpcAddress: '',
    events: r.events,
    logger,
    warnMs: 60_000,
    intervalMs: 20,
    reader: scripted(chain),
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  chain.latest = 100;
  await follow.done;
  assert.equal(r.seen.find((e) => e.event === 'network-waiting')?.data?.ownPrevote, null);
  assert.equal(r.seen.at(-1)?.data?.signed, null);
});

test('a manual upgrade: the first block is the one after the halt height', async () => {
  const chain = { latest: 100 };
  const r = recorder();
  const follow = startFollow({
    upgrade,
    firstBlock: 101,
    switchedAt: Date.now(),
    rpcAddress: '',
    events: r.events,
    logger,
    warnMs: 60_000,
    intervalMs: 20,
    reader: scripted(chain),
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(r.names(), ['network-waiting']);
  chain.latest = 101;
  await follow.done;
  assert.equal(r.seen.at(-1)?.data?.height, 101);
});

test('stalled after the warning, again each warning, and nothing once stopped', async () => {
  const r = recorder();
  const follow = startFollow({
    upgrade,
    switchedAt: Date.now(),
    rpcAddress: '',
    events: r.events,
    logger,
    warnMs: 500,
    intervalMs: 20,
    reader: scripted({ latest: 99 }),
  });
  // Stalled at 500 and 1000 ms: stopped between the second and a third, with room either side for a loaded machine.
  await new Promise((resolve) => setTimeout(resolve, 1300));
  follow.stop();
  const stalls = r.seen.filter((e) => e.event === 'upgrade-stalled');
  assert.equal(stalls.length, 2, r.names().join(', '));
  assert.equal(stalls[0]?.data?.state, 'stalled');
  const count = r.seen.length;
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(r.seen.length, count, 'no event after stop');
  await follow.done;
});

test('a node that does not answer yet is asked again, and can still stall', async () => {
  const reader = scripted({ latest: 99 });
  reader.validator = async () => {
    throw new Error('connection refused');
  };
  const r = recorder();
  const follow = startFollow({ upgrade, switchedAt: Date.now(), rpcAddress: '', events: r.events, logger, warnMs: 60, intervalMs: 20, reader });
  // Until the stall is said (60 ms, later on a loaded machine), not a fixed time: the node never answered
  // in between, so nothing else was said.
  await waitFor(() => r.names().includes('upgrade-stalled'), 'the stall reported');
  follow.stop();
  assert.deepEqual(r.names(), ['upgrade-stalled']);
});

/** A follow of `reader` whose log is kept; the follow is stopped by the test. */
function loggedFollow(reader: ConsensusReader) {
  const log = memoryLogger();
  const r = recorder();
  const follow = startFollow({ upgrade, switchedAt: Date.now(), rpcAddress: '', events: r.events, logger: log.logger, warnMs: 60_000, intervalMs: 20, reader });
  const warnings = (text: RegExp) => log.lines().filter((l) => l.level === 40 && text.test(String(l.msg))).length;
  return { log, r, follow, warnings };
}

/** The round at height 100 with these prevotes. */
const prevoting =
  (prevotes: VoteShare): (() => RoundState) =>
  () => ({ height: 100, round: 0, step: 4, prevotes, precommits: undefined });

test('an answer the reader refuses: one warning, the follow goes on, and the next good answer is used', async () => {
  const reader = scripted({ latest: 99 });
  const good = reader.validator;
  let bad = 4;
  reader.validator = async () => {
    if (bad-- > 0) throw new ChainAnswerRefusedError('tcp://x', "the node's validator", 'it is nested deeper than 32 levels');
    return good();
  };
  const { log, r, follow, warnings } = loggedFollow(reader);
  await waitFor(() => r.seen.some((e) => e.event === 'network-waiting'), 'a good reading after the bad ones');
  follow.stop();
  assert.equal(warnings(/nested deeper than 32 levels/), 1, 'one warning, not one a second');
  assert.ok(log.lines().filter((l) => /nested deeper than 32 levels/.test(String(l.msg))).length >= 4, 'the others at debug');
  // While it lasts, the status hears of it (rpcProblem); the good reading clears it.
  const problem = r.seen.find((e) => e.event === 'consensus-round' && typeof e.data?.rpcProblem === 'string');
  assert.match(String(problem?.data?.rpcProblem), /the answer was refused: it is nested deeper than 32 levels/);
  const waiting = r.seen.find((e) => e.event === 'network-waiting');
  assert.equal(waiting?.data?.rpcProblem, null);
  assert.equal(waiting?.data?.prevoteRatio, 1 / 3);
  assert.equal(waiting?.data?.ownPrevote, true);
});

test('a share above 100 % is shown as 100 %, and the RPC is said to be wrong, in the log and the events', async () => {
  const reader = scripted({ latest: 99, round: prevoting({ voted: [true, true], power: 1e23, total: 30, ratio: 1, overstated: true }) });
  const { r, follow, warnings } = loggedFollow(reader);
  await waitFor(() => r.seen.some((e) => e.event === 'network-waiting'), 'the first reading');
  follow.stop();
  const waiting = r.seen.find((e) => e.event === 'network-waiting');
  assert.equal(waiting?.data?.prevoteRatio, 1);
  assert.match(String(waiting?.text), /100 % of the voting power prevoted/);
  assert.match(String(waiting?.data?.rpcProblem), /the prevote share claims 1e\+23 of 30 voting power, more than all of it \(shown as 100 %\)/);
  assert.equal(waiting?.data?.ownPrevote, null, 'a lying RPC says nothing of this validator’s vote');
  assert.equal(warnings(/more than all of it/), 1);
});

test('a bit array whose length is not the validator set’s says nothing of this validator’s vote; the set is read again', async () => {
  const reader = scripted({ latest: 99, round: prevoting({ voted: [true, true, true], power: 30, total: 30, ratio: 1, overstated: false }) });
  let orders = 0;
  reader.validatorOrder = async () => {
    orders++;
    return [self, peer];
  };
  const { r, follow, warnings } = loggedFollow(reader);
  await waitFor(() => orders >= 3, 'the set read again');
  follow.stop();
  const waiting = r.seen.find((e) => e.event === 'network-waiting');
  assert.equal(waiting?.data?.ownPrevote, null);
  assert.match(String(waiting?.data?.rpcProblem), /the prevote bit array has 3 entries for a validator set of 2/);
  assert.equal(warnings(/bit array has 3 entries/), 1);
});

test('a refused answer after the confirmation is only logged: no consensus-round tells the metrics it is not confirmed', async () => {
  const reader = scripted({ latest: 103, signs: (h) => h !== 100 });
  const commit = reader.commit;
  let bad = 2;
  reader.commit = async (height: number) => {
    if (height === 101 && bad-- > 0) throw new ChainAnswerRefusedError('tcp://x', `the commit of block ${height}`, 'it is not JSON');
    return commit(height);
  };
  const { r, follow, warnings } = loggedFollow(reader);
  await follow.done;
  assert.deepEqual(r.names(), ['upgrade-confirmed']);
  assert.ok(!r.seen.some((e) => e.event === 'consensus-round'), r.seen.map((e) => e.event).join(', '));
  assert.equal(warnings(/it is not JSON/), 1);
});

test('a NewBlock from the subscription confirms at once: the first block’s commit is read without waiting for the next reading (issue #35)', async () => {
  const chain = { latest: 99 };
  const reader = scripted(chain);
  const r = recorder();
  let onBlock: (() => void) | undefined;
  let closed = false;
  const subscribe = (o: { onBlock: () => void }) => {
    onBlock = o.onBlock;
    return { close: () => void (closed = true) };
  };
  // A reading once a minute: only the subscription can confirm within the test.
  const follow = startFollow({
    upgrade,
    switchedAt: Date.now(),
    rpcAddress: 'tcp://127.0.0.1:1',
    events: r.events,
    logger,
    warnMs: 600_000,
    intervalMs: 60_000,
    reader,
    subscribe,
  });
  await waitFor(() => onBlock !== undefined, 'subscribed after the first reading');
  chain.latest = 100;
  onBlock?.();
  await follow.done;
  assert.deepEqual(r.names(), ['network-waiting', 'upgrade-confirmed']);
  assert.equal(r.seen.at(-1)?.data?.signed, true);
  assert.ok(closed, 'the subscription ends with the follow');
});

test('a first block whose time is in the future (a node clock ahead): noticedMs is 0, never negative', async () => {
  const reader = scripted({ latest: 100, time: () => Date.now() + 60_000 });
  const r = recorder();
  const follow = startFollow({ upgrade, switchedAt: Date.now(), rpcAddress: '', events: r.events, logger, warnMs: 60_000, intervalMs: 20, reader });
  await follow.done;
  const confirmed = r.seen.find((e) => e.event === 'upgrade-confirmed');
  assert.equal(confirmed?.data?.noticedMs, 0);
});

test('a node whose first block beats its RPC: the websocket is tried from the start, and its opening reads at once, not a second later', async () => {
  let listening = false;
  const chain = { latest: 101 };
  const reader = scripted(chain);
  const validator = reader.validator;
  reader.validator = async () => {
    if (!listening) throw new Error('connect ECONNREFUSED');
    return validator();
  };
  const subscribe = (o: { onBlock: () => void; onEnd: (reason: string) => void }) => {
    const opened = listening;
    setTimeout(() => (opened ? o.onBlock() : o.onEnd('connect ECONNREFUSED')), 5);
    return { close: () => undefined };
  };
  const r = recorder();
  const startedAt = Date.now();
  // A poll every 5 s: confirmed well before it only by the websocket's opening read.
  const follow = startFollow({ upgrade, switchedAt: startedAt, rpcAddress: '', events: r.events, logger, warnMs: 60_000, intervalMs: 5000, reader, subscribe });
  setTimeout(() => (listening = true), 300);
  await follow.done;
  const tookMs = Date.now() - startedAt;
  assert.deepEqual(r.names(), ['upgrade-confirmed']);
  assert.ok(tookMs < 3000, `confirmed ${tookMs} ms after the start; the RPC listened at 300 ms, the websocket is retried every 200 ms, the poll is every 5 s`);
});

test('a round state below the first block (a node still loading reports 0/0/0) is not the wait at the height', async () => {
  const chain = { latest: 99 };
  let loading = true;
  const reader = scripted({
    ...chain,
    round: () => ({
      height: loading ? 0 : 100,
      round: 0,
      step: 4,
      prevotes: { voted: [true, false], power: 10, total: 30, ratio: 1 / 3, overstated: false },
      precommits: { voted: [false, false], power: 0, total: 30, ratio: 0, overstated: false },
    }),
  });
  const r = recorder();
  const follow = startFollow({
    upgrade,
    switchedAt: Date.now(),
    rpcAddress: '',
    events: r.events,
    logger,
    warnMs: 60_000,
    intervalMs: 20,
    reader,
    subscribe: false,
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(r.names(), [], 'nothing said of a round at height 0');
  loading = false;
  await waitFor(() => r.names().includes('network-waiting'), 'the wait at height 100');
  const waiting = r.seen.find((e) => e.event === 'network-waiting');
  assert.equal(waiting?.data?.height, 100);
  follow.stop();
});
