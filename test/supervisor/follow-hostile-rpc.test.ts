/**
 * The follow after an upgrade, with the real `chainvisor run`, reading a fake RPC that answers as a
 * hostile or broken one would (issue #31): 4 MB of nested arrays, a bit array of 4 million entries, a
 * share of 10^23 voting power, an answer that never ends, a slow-loris one. Each is refused, clamped or
 * given up, said in the log and in `chainvisor status`, and the good answer that follows is used; the
 * node itself is never touched, and SIGTERM is answered.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import type { AfterUpgrade } from '../../src/shared/events/index.js';
import { plan } from '../support/fake-node.js';
import { bitArray, consensusResult, dumpResult, type FakeRpc, startFakeRpc, statusResult } from '../support/fake-rpc.js';
import { makeHome, type TestHome, waitFor } from '../support/home.js';

const self = 'A'.repeat(40);
const peer = 'B'.repeat(40);

describe('run: the follow reads a hostile RPC', () => {
  let t: TestHome;
  let rpc: FakeRpc;
  beforeEach(async () => {
    rpc = await startFakeRpc();
    // The plan watch is off: only the follow asks the fake RPC.
    t = await makeHome({ CHAINVISOR_RPC_ADDRESS: rpc.address, CHAINVISOR_PLAN_POLL_INTERVAL: '0s' });
  });
  afterEach(async () => {
    await rpc.close();
    await t.cleanup();
  });

  interface Status {
    afterUpgrade: AfterUpgrade | null;
    problems: string[];
  }

  const status = async (): Promise<Status> => JSON.parse((await t.cliOk(['status', '--output', 'json'])).stdout) as Status;

  /** A home with v2 due at start-up, the node at height 9 as far as the fake RPC says; `run` started. */
  async function startRun(): Promise<{ run: ReturnType<TestHome['spawn']>; output: () => string }> {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    await t.cliOk(['add-upgrade', 'v2', await t.fakeNode({ label: 'v2' })]);
    await fs.mkdir(path.join(t.home, 'data'), { recursive: true });
    await fs.writeFile(path.join(t.home, 'data/upgrade-info.json'), JSON.stringify(plan('v2', 10)));
    const run = t.spawn(['run', 'start']);
    let output = '';
    run.all.on('data', (chunk: Buffer) => (output += chunk.toString()));
    return { run, output: () => output };
  }

  test('refused or clamped, said in the log and the status, and the good answer after a bad one is used', async () => {
    // A node at height 9 whose validator is one of two: the follow waits for block 10.
    rpc.answer('/status', { result: statusResult({ height: 9, address: self, power: '10' }) });
    rpc.answer('/dump_consensus_state', { result: dumpResult([self, peer]) });
    const n = 2_000_000;
    rpc.answer('/consensus_state', { body: `{"jsonrpc":"2.0","id":-1,"result":{"round_state":${'['.repeat(n)}${']'.repeat(n)}}}` });
    const { run, output } = await startRun();
    const until = async (what: string, check: (s: Status) => boolean): Promise<Status> => {
      let last: Status | undefined;
      await waitFor(async () => check((last = await status())), what, 20_000).catch((error: Error) => {
        throw new Error(`${error.message}\nlast status: ${JSON.stringify(last)}\nchainvisor printed:\n${output().slice(-3000)}`);
      });
      return last as Status;
    };
    try {
      // 4 MB of nested arrays: refused by its depth, a warning, a problem in the status.
      await until('the nested answer refused', (s) => s.problems.some((p) => /nested deeper than 32 levels/.test(p)));
      const warning = output()
        .split('\n')
        .find((l) => /nested deeper than 32 levels/.test(l));
      assert.ok(warning, output());
      assert.equal((JSON.parse(warning) as { level: number }).level, 40, 'a warning');

      // A good answer next: used, and the problem gone.
      rpc.answer('/consensus_state', { result: consensusResult({ height: 10, prevotes: bitArray([true, false], 10, 30) }) });
      let s = await until('the good answer used', (x) => x.afterUpgrade?.prevoteRatio === 1 / 3);
      assert.deepEqual(s.problems, []);
      assert.equal(s.afterUpgrade?.ownPrevote, true);
      assert.equal(s.afterUpgrade?.height, 10);

      // A share of 10^23 of 30: shown as 100 %, and said.
      rpc.answer('/consensus_state', { result: consensusResult({ height: 10, prevotes: 'BA{2:xx} 100000000000000000000000/30 = 3333333333333333333333.33' }) });
      s = await until('the lie said', (x) => x.problems.some((p) => /more than all of it/.test(p)));
      assert.equal(s.afterUpgrade?.prevoteRatio, 1);
      const text = (await t.cliOk(['status'])).stdout;
      assert.match(text, /after upgrade +v2: waiting at height 10, round 0: 100 % of the voting power prevoted/);
      assert.match(text, /problem +after upgrade: the node's RPC answers wrongly: the prevote share claims 1e\+23 of 30 voting power/);
      assert.doesNotMatch(text, /e\+\d+ %/);

      // A bit array of 4 million entries: refused.
      rpc.answer('/consensus_state', { result: consensusResult({ height: 10, prevotes: `BA{4000000:${'x'.repeat(4_000_000)}} 1/1 = 1.00` }) });
      await until('the bit array refused', (x) => x.problems.some((p) => /a bit array has at most 10000 entries/.test(p)));

      // And a good answer again.
      rpc.answer('/consensus_state', { result: consensusResult({ height: 10, prevotes: bitArray([true, true], 20, 30) }) });
      s = await until('the good answer used again', (x) => x.afterUpgrade?.prevoteRatio === 2 / 3);
      assert.deepEqual(s.problems, []);
      assert.ok(!output().includes('unexpected error'), output());
      // The node was never touched: started once, never signalled.
      assert.deepEqual(await t.journalLines(), ['v2 pre-upgrade 1', 'v2 start [start]']);
    } finally {
      run.kill('SIGTERM');
      await run;
    }
    assert.deepEqual(await t.journalLines(), ['v2 pre-upgrade 1', 'v2 start [start]', 'v2 got TERM']);
  });

  test('an answer that never ends is refused at its bound, a slow-loris one ends at the deadline; SIGTERM is answered', async () => {
    rpc.answer('/status', { endless: true });
    const { run, output } = await startRun();
    try {
      await waitFor(() => /the answer is larger than 65536 bytes/.test(output()), 'the endless answer refused', 20_000);
      // A byte every 100 ms: never done within the follow's 2 s deadline, asked again after each.
      const asked = rpc.requests.length;
      rpc.answer('/status', { trickle: JSON.stringify({ result: statusResult({ height: 9, address: self, power: '10' }) }), everyMs: 100 });
      await waitFor(() => rpc.requests.length >= asked + 2, 'the slow answer given up and asked again', 20_000);
    } finally {
      run.kill('SIGTERM');
    }
    const r = await run;
    assert.equal(r.exitCode, 143, output());
    assert.deepEqual(await t.journalLines(), ['v2 pre-upgrade 1', 'v2 start [start]', 'v2 got TERM']);
  });
});
