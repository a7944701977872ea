/**
 * The ETA's error on a chain whose block times vary (issue #35): the simulated node with
 * `--sim-block-time-jitter` (each interval the block time × 1 ± up to that fraction, uniformly), its
 * height read once a second as the plan watch reads it on a fast chain, fed to the estimator chainvisor
 * uses (shared/eta.ts: the mean over the last 500 blocks), and an estimate made at each reading of when
 * a target height comes. When it comes (the block's own header time), each estimate's error is known:
 * printed by how far ahead it was made, in seconds and as a share of the time that was left, beside
 * what the last two readings alone would have said (what the window is for).
 *
 *   npm run bench:eta -- [--block-time 200ms] [--jitter 0.5] [--blocks 900]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';

import { buildVersions } from '@chainvisor/simd';
import { execa } from 'execa';

import { createRpcClient } from '../src/chain/index.js';
import { createBlockClock, etaOf } from '../src/shared/eta.js';
import { unusedPort } from '../test/support/ports.js';

const { values } = parseArgs({
  options: { 'block-time': { type: 'string', default: '200ms' }, jitter: { type: 'string', default: '0.5' }, blocks: { type: 'string', default: '900' } },
});
const blocks = Number(values.blocks);

const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-eta-'));
try {
  const built = await buildVersions({ out: path.join(dir, 'versions'), versions: ['genesis'] });
  const bin = built.versions.genesis?.bin as string;
  const home = path.join(dir, 'home');
  await execa(bin, ['init', 'bench', '--home', home]);
  const port = await unusedPort();
  const node = spawn(
    bin,
    [
      'start',
      '--home',
      home,
      '--block-time',
      values['block-time'],
      '--sim-block-time-jitter',
      values.jitter,
      '--rpc.laddr',
      `tcp://127.0.0.1:${port}`,
      '--grpc.address',
      `127.0.0.1:${await unusedPort()}`,
      '--api.address',
      'tcp://127.0.0.1:0',
    ],
    { stdio: 'ignore' },
  );
  const rpc = createRpcClient({ address: `tcp://127.0.0.1:${port}` });
  try {
    let start: number | undefined;
    while (start === undefined) start = await rpc.latestHeight().catch(() => sleep(200).then(() => undefined));
    const target = start + blocks;
    console.log(`block time ${values['block-time']} ± ${Number(values.jitter) * 100} %, target height ${target} (${blocks} blocks on), one reading a second`);
    const clock = createBlockClock();
    const estimates: { at: number; left: number; windowed: number; lastTwo: number | null; basedOn: number }[] = [];
    let previous: { height: number; at: number } | undefined;
    for (;;) {
      const height = await rpc.latestHeight();
      const at = Date.now();
      if (height >= target) break;
      clock.observe(height, at);
      const eta = etaOf(target, clock.blockTime(), at);
      const lastTwo = previous && height > previous.height ? at + ((target - height) * (at - previous.at)) / (height - previous.height) : null;
      if (eta) estimates.push({ at, left: target - height, windowed: Date.parse(eta.at), lastTwo, basedOn: eta.basedOnBlocks });
      if (previous === undefined || height !== previous.height) previous = { height, at };
      await sleep(1000);
    }
    const commit = (await (await fetch(`http://127.0.0.1:${port}/commit?height=${target}`)).json()) as {
      result: { signed_header: { header: { time: string } } };
    };
    const actual = Date.parse(commit.result.signed_header.header.time);
    console.log('blocks ahead | window (blocks) | error of the estimate (s, % of the time left) | last two readings only');
    const rows: { ahead: number; pct: number; naive: number | null }[] = [];
    for (const e of estimates) {
      const leftMs = actual - e.at;
      const pct = (100 * Math.abs(e.windowed - actual)) / leftMs;
      const naive = e.lastTwo === null ? null : (100 * Math.abs(e.lastTwo - actual)) / leftMs;
      rows.push({ ahead: e.left, pct, naive });
      if (leftMs > 0 && estimates.indexOf(e) % 15 === 0)
        console.log(
          `  ${String(e.left).padStart(5)} | ${String(e.basedOn).padStart(5)} | ${((e.windowed - actual) / 1000).toFixed(1).padStart(6)} s, ${pct.toFixed(1)} % | ${naive === null ? '-' : `${naive.toFixed(1)} %`}`,
        );
    }
    const summary = (list: number[]) => {
      const sorted = [...list].sort((x, y) => x - y);
      return `median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(1)} %, 90th ${sorted[Math.floor(sorted.length * 0.9)]?.toFixed(1)} %, max ${sorted.at(-1)?.toFixed(1)} %`;
    };
    const far = rows.filter((r) => r.ahead >= 100);
    console.log(`estimates 100 blocks or more ahead: window ${summary(far.map((r) => r.pct))}`);
    console.log(`                               last two readings ${summary(far.filter((r) => r.naive !== null).map((r) => r.naive as number))}`);
  } finally {
    rpc.close();
    node.kill('SIGTERM');
    await new Promise((resolve) => node.once('exit', resolve));
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
