/**
 * The consensus reader (src/chain/consensus.ts): the bit-array text, and what a hostile or broken
 * RPC answers (issue #31), against a fake RPC on a real port. Each hostile answer is refused with a
 * ChainAnswerRefusedError naming what is wrong, before it can cost memory or be half-used.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';

import { ChainAnswerRefusedError, type ConsensusReader, createConsensusReader, parseVoteShare } from '../../src/chain/index.js';
import { bitArray, commitResult, consensusResult, dumpResult, type Reply, startFakeRpc, statusResult, wrap } from '../support/fake-rpc.js';

const self = 'A'.repeat(40);
const peer = 'B'.repeat(40);

test('a bit array gives each validator its vote and the share exactly, not the rounded 2 decimals', () => {
  const share = parseVoteShare('BA{11:_xxxxxxxxxx} 2000000/3000000 = 0.67');
  assert.ok(share);
  assert.deepEqual(share.voted, [false, ...Array<boolean>(10).fill(true)]);
  assert.equal(share.power, 2000000);
  assert.equal(share.total, 3000000);
  assert.equal(share.ratio, 2 / 3);
  assert.equal(share.overstated, false);
});

test('an empty round, a zero total and what is not a bit array', () => {
  assert.deepEqual(parseVoteShare('BA{3:___} 0/300 = 0.00')?.voted, [false, false, false]);
  assert.equal(parseVoteShare('BA{0:} 0/0 = 0.00')?.ratio, 0);
  assert.equal(parseVoteShare('nil-BitArray'), undefined);
  assert.equal(parseVoteShare('BA{3:xx} 1/2 = 0.50'), undefined, 'the length must match');
  assert.equal(parseVoteShare(undefined), undefined);
});

test('a share above 1 is clamped to 1 and said to be overstated', () => {
  const share = parseVoteShare('BA{1:x} 100000000000000000000000/10 = 10000000000000000000000.00');
  assert.equal(share?.ratio, 1);
  assert.equal(share?.overstated, true);
});

test('a bit array of more than 10 000 entries (CometBFT’s limit) is not read', () => {
  assert.equal(parseVoteShare(bitArray(Array<boolean>(10_001).fill(true), 1, 1)), undefined);
  assert.equal(parseVoteShare(bitArray(Array<boolean>(10_000).fill(true), 1, 1))?.voted.length, 10_000);
  assert.equal(parseVoteShare(`BA{4000000:${'x'.repeat(4_000_000)}} 1/1 = 1.00`), undefined);
});

/** A reader on a fake RPC whose `answers` are set; closed with the test. */
async function readerOn(t: TestContext, answers: Record<string, Reply>): Promise<ConsensusReader> {
  const rpc = await startFakeRpc();
  t.after(() => rpc.close());
  for (const [path, reply] of Object.entries(answers)) rpc.answer(path, reply);
  const reader = createConsensusReader({ address: rpc.address, timeoutMs: 5000 });
  t.after(() => reader.close());
  return reader;
}

async function assertRefused(reading: Promise<unknown>, reason: RegExp): Promise<void> {
  await assert.rejects(reading, (error: unknown) => {
    assert.ok(error instanceof ChainAnswerRefusedError, String(error));
    assert.equal(error.code, 'CHAINVISOR_CHAIN_UNAVAILABLE');
    assert.match(error.message, /the answer was refused: /);
    assert.match(error.message, reason);
    assert.ok(error.message.length < 1000, `a short message, not the answer: ${error.message.length} characters`);
    return true;
  });
}

/** A JSON-RPC answer whose `result` is `inner`, written as text (for shapes JSON.stringify would not make cheaply). */
const rawAnswer = (inner: string): Reply => ({ body: `{"jsonrpc":"2.0","id":-1,"result":${inner}}` });

test('the answers of a node are read', async (t) => {
  const reader = await readerOn(t, {
    '/status': { result: statusResult({ height: 99, address: self.toLowerCase(), power: '10' }) },
    '/consensus_state': { result: consensusResult({ height: 100, round: 2, prevotes: bitArray([true, false], 10, 30) }) },
    '/dump_consensus_state': { result: dumpResult([self, peer]) },
    '/commit': { result: commitResult({ height: 100, time: '2026-01-01T00:00:01.123456789Z', signers: [peer] }) },
  });
  assert.deepEqual(await reader.validator(), { address: self, votingPower: 10, latestHeight: 99 });
  const round = await reader.roundState();
  assert.deepEqual([round.height, round.round, round.step, round.prevotes?.ratio, round.precommits], [100, 2, 6, 1 / 3, undefined]);
  assert.deepEqual(await reader.validatorOrder(), [self, peer]);
  const commit = await reader.commit(100);
  assert.deepEqual([...commit.signers], [peer]);
  assert.equal(commit.time, Date.parse('2026-01-01T00:00:01.123Z'));
});

test('4 MB of nested arrays (under the 4 MiB bound) is refused by its depth, before it is parsed', async (t) => {
  const n = 2_000_000;
  const reader = await readerOn(t, { '/consensus_state': rawAnswer(`{"round_state":${'['.repeat(n)}${']'.repeat(n)}}`) });
  await assertRefused(reader.roundState(), /nested deeper than 32 levels/);
});

test('4 MB of sibling arrays is refused by their number, before it is parsed', async (t) => {
  const reader = await readerOn(t, { '/consensus_state': rawAnswer(`{"x":[${'[],'.repeat(1_300_000)}[]]}`) });
  await assertRefused(reader.roundState(), /more than 100000 objects and arrays/);
});

test('a /status larger than a node’s (64 KiB) is refused by its size', async (t) => {
  const big = statusResult({ height: 1, address: self, power: '1' }) as Record<string, unknown>;
  const reader = await readerOn(t, { '/status': { result: { ...big, padding: 'x'.repeat(100_000) } } });
  await assertRefused(reader.validator(), /larger than 65536 bytes/);
});

test('a bit array of 4 million entries is refused', async (t) => {
  const prevotes = `BA{4000000:${'x'.repeat(4_000_000)}} 1/1 = 1.00`;
  const reader = await readerOn(t, { '/consensus_state': { result: consensusResult({ height: 10, prevotes }) } });
  await assertRefused(reader.roundState(), /prevotes_bit_array: a bit array has at most 10000 entries/);
});

test('wrong types: a number where CometBFT writes a decimal string, a string where it writes a number', async (t) => {
  const status = statusResult({ height: 1, address: self, power: '1' }) as { sync_info: object; validator_info: object };
  const cases: Array<[Record<string, Reply>, (r: ConsensusReader) => Promise<unknown>, RegExp]> = [
    [{ '/status': { result: { ...status, validator_info: { address: self, voting_power: 10 } } } }, (r) => r.validator(), /voting_power/],
    [{ '/status': { result: { ...status, sync_info: { latest_block_height: 9 } } } }, (r) => r.validator(), /latest_block_height/],
    [{ '/status': { result: [] } }, (r) => r.validator(), /no result/],
    [
      {
        '/consensus_state': {
          result: { round_state: { 'height/round/step': '10/0/1', height_vote_set: [{ round: '0', prevotes_bit_array: 'nil-BitArray' }] } },
        },
      },
      (r) => r.roundState(),
      /height_vote_set\[0\]\.round/,
    ],
    [{ '/consensus_state': { result: { round_state: { 'height/round/step': [10, 0, 1] } } } }, (r) => r.roundState(), /height\/round\/step/],
    [{ '/commit': { result: withFlag('2') } }, (r) => r.commit(10), /block_id_flag/],
    [{ '/status': { result: null } }, (r) => r.validator(), /no result/],
    [{ '/status': { body: 'not json at all' } }, (r) => r.validator(), /not JSON/],
    [{ '/status': { body: '[1,2,3]' } }, (r) => r.validator(), /no result/],
    [{ '/status': { body: '"a string"' } }, (r) => r.validator(), /not a JSON-RPC answer/],
  ];
  for (const [answers, read, reason] of cases) await assertRefused(read(await readerOn(t, answers)), reason);
});

/** A commit whose only signature has `block_id_flag` as given. */
function withFlag(flag: unknown): unknown {
  const commit = commitResult({ height: 10, time: '2026-01-01T00:00:00Z', signers: [self] }) as {
    signed_header: { commit: { signatures: Record<string, unknown>[] } };
  };
  (commit.signed_header.commit.signatures[0] as Record<string, unknown>).block_id_flag = flag;
  return commit;
}

test('negative heights and numbers past what a height can be are refused', async (t) => {
  const status = (height: string) => ({ '/status': { result: statusResult({ height, address: self, power: '1' }) } });
  const round = (hrs: string) => ({ '/consensus_state': { result: { round_state: { 'height/round/step': hrs, height_vote_set: [] } } } });
  await assertRefused((await readerOn(t, status('-5'))).validator(), /latest_block_height: a height is a decimal string/);
  await assertRefused((await readerOn(t, status('99999999999999999999'))).validator(), /latest_block_height/);
  await assertRefused((await readerOn(t, status('9007199254740993'))).validator(), /at most 2\^53/);
  await assertRefused((await readerOn(t, round('-5/0/1'))).roundState(), /height\/round\/step/);
  await assertRefused((await readerOn(t, round('10/99999999999999999999/1'))).roundState(), /height\/round\/step/);
  const power = { '/status': { result: statusResult({ height: 1, address: self, power: '1'.repeat(40) }) } };
  await assertRefused((await readerOn(t, power)).validator(), /voting power is a decimal string of at most 19 digits/);
});

test('10^6 validators: in the dump, in /validators, in a commit, all refused', async (t) => {
  const million = `[${'{},'.repeat(999_999)}{}]`;
  const reader = await readerOn(t, {
    '/dump_consensus_state': rawAnswer(`{"round_state":{"validators":{"validators":${million}}}}`),
    '/validators': { result: { block_height: '10', validators: [{ address: self }], count: '1', total: '1000000' } },
    '/commit': rawAnswer(`{"signed_header":{"header":{"time":"2026-01-01T00:00:00Z"},"commit":{"signatures":${million}}}}`),
  });
  // The dump refused, /validators (read instead) is refused too.
  await assertRefused(reader.validatorOrder(), /total: a validator set has at most 10000 validators/);
  await assertRefused(reader.commit(10), /more than 100000 objects and arrays/);
  // 50 000 short ones pass the count of objects, not the length: the dump is refused, and /validators read instead.
  const many = dumpResult(Array.from({ length: 50_000 }, (_, i) => i.toString(16)));
  const second = await readerOn(t, {
    '/dump_consensus_state': { result: many },
    '/validators': { result: { validators: [{ address: self }, { address: peer }], total: '2' } },
  });
  assert.deepEqual(await second.validatorOrder(), [self, peer]);
});

test('unicode in addresses is refused (not hex), wherever an address is read', async (t) => {
  const fullwidth = 'Ａ'.repeat(40);
  await assertRefused((await readerOn(t, { '/status': { result: statusResult({ height: 1, address: fullwidth, power: '1' }) } })).validator(), /address/);
  // ß upper-cases to SS: without the check, 20 of them would be read as a 40-character address.
  await assertRefused((await readerOn(t, { '/status': { result: statusResult({ height: 1, address: 'ß'.repeat(20), power: '1' }) } })).validator(), /address/);
  const rtl = `${self.slice(0, 20)}\u202e${self.slice(20)}`;
  const dump = { '/dump_consensus_state': { result: dumpResult([rtl]) }, '/validators': { result: { validators: [{ address: rtl }], total: '1' } } };
  await assertRefused((await readerOn(t, dump)).validatorOrder(), /address/);
  const commit = commitResult({ height: 10, time: '2026-01-01T00:00:00Z', signers: [`\u001b[31m${self}`] });
  await assertRefused((await readerOn(t, { '/commit': { result: commit } })).commit(10), /address/);
});

test('what the reason quotes of the answer is short and has its control characters escaped', async (t) => {
  const evil = `\u001b[2J${'9'.repeat(1_000_000)}`;
  const round_state = { 'height/round/step': '10/0/1', height_vote_set: [{ round: evil }] };
  const reader = await readerOn(t, { '/consensus_state': { result: { round_state } } });
  await assert.rejects(reader.roundState(), (error: Error) => {
    assert.match(error.message, /height_vote_set\[0\]\.round: Invalid type: Expected number but received "\\u\{1b\}\[2J999/);
    assert.doesNotMatch(error.message, /\u001b/);
    assert.ok(error.message.length < 600, `${error.message.length} characters`);
    return true;
  });
});

test('an absent signature (block_id_flag 1, no address) is not a signer; 2 and 3 are', async (t) => {
  const commit = commitResult({ height: 10, time: '2026-01-01T00:00:00Z', signers: [self, peer] }) as {
    signed_header: { commit: { signatures: Record<string, unknown>[] } };
  };
  const [first, second] = commit.signed_header.commit.signatures as [Record<string, unknown>, Record<string, unknown>];
  first.block_id_flag = 3;
  second.block_id_flag = 1;
  second.validator_address = '';
  commit.signed_header.commit.signatures.push({ block_id_flag: 1, validator_address: '', timestamp: '0001-01-01T00:00:00Z', signature: null });
  const reader = await readerOn(t, { '/commit': { result: commit } });
  assert.deepEqual([...(await reader.commit(10)).signers], [self]);
});

test('a result that is a string, not an object, is refused', async (t) => {
  const reader = await readerOn(t, { '/status': { body: wrap('{"sync_info": 1}') } });
  await assertRefused(reader.validator(), /no result/);
});
