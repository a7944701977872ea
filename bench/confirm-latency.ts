/**
 * The follow's latency after an upgrade (issue #26): on the simulated chain, a genesis node with 10
 * simulated peers under `chainvisor run`, a manual upgrade queued at height H, the peers back over 2 s
 * after the switch (`--sim-peers-back-after`). Per run: the time from the new binary's first block
 * (H + 1) committed — the node's own `committed state` log timestamp — to chainvisor's
 * `upgrade-confirmed` log line. The follow subscribes to NewBlock on the node's websocket (issue #35),
 * so the block is read as soon as it is committed; polling alone (once a second, before #35) took about
 * half a second on average. Prints each run and the median.
 *
 * `--compare <bin/chainvisor.js of another build>` runs that build too, interleaved run by run with this
 * one on the same chain set-up, so both medians come from the same machine at the same time (for
 * example a build of the commit before the websocket, in a scratch clone).
 *
 *   npm run bench:confirm -- [--runs 10] [--height 40] [--compare /tmp/base/bin/chainvisor.js]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { buildVersions } from '@chainvisor/simd';
import { execa } from 'execa';

import { unusedPort } from '../test/support/ports.js';

const chainvisor = path.resolve(fileURLToPath(import.meta.url), '../../../bin/chainvisor.js');
const { values } = parseArgs({
  options: { runs: { type: 'string', default: '10' }, height: { type: 'string', default: '40' }, compare: { type: 'string' } },
});
const runs = Number(values.runs);
const height = Number(values.height);

async function once(dir: string, bins: Record<string, string>, run: string, cv = chainvisor): Promise<{ latency: number; seconds: number; signed: unknown }> {
  const home = path.join(dir, `home-${run}`);
  const env = {
    ...process.env,
    DAEMON_HOME: home,
    DAEMON_NAME: 'simd',
    UNSAFE_SKIP_BACKUP: 'true',
    DAEMON_GRPC_ADDRESS: `127.0.0.1:${await unusedPort()}`,
    CHAINVISOR_LOG_FORMAT: 'json',
  };
  await execa(bins.genesis as string, ['init', 'bench', '--home', home]);
  await execa(process.execPath, [cv, 'init', bins.genesis as string], { env });
  await execa(process.execPath, [cv, 'add-upgrade', 'v2', bins.v2 as string, '--upgrade-height', String(height)], { env, reject: false });
  const flags = [
    '--block-time',
    '50ms',
    '--rpc.laddr',
    `tcp://127.0.0.1:${await unusedPort()}`,
    '--grpc.address',
    env.DAEMON_GRPC_ADDRESS,
    '--api.address',
    'tcp://127.0.0.1:0',
  ];
  const network = ['--sim-peers-power', '9000000', '--sim-peers-back-after', '2s'];
  const proc = spawn(process.execPath, [cv, 'run', 'start', '--home', home, ...flags, ...network], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let version = '?';
  let committedAt: number | undefined;
  let confirmed: { time: number; seconds: number; signed: unknown } | undefined;
  let buffer = '';
  const onData = (chunk: string, resolve: () => void) => {
    buffer += chunk;
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      const start = / starting node .*version=(\S+)/.exec(line);
      if (start) version = start[1] as string;
      const commit = /^(\S+) INF committed state .*height=(\d+)/.exec(line);
      if (commit && version === 'v2' && Number(commit[2]) === height + 1) committedAt = Date.parse(commit[1] as string);
      if (line.includes('"event":"upgrade-confirmed"')) {
        const record = JSON.parse(line) as { time: number; seconds: number; signed: unknown };
        confirmed = { time: record.time, seconds: record.seconds, signed: record.signed };
      }
      if (confirmed && committedAt !== undefined) resolve();
    }
  };
  await new Promise<void>((resolve) => {
    proc.stderr.setEncoding('utf8').on('data', (c: string) => onData(c, resolve));
    proc.stdout.setEncoding('utf8').on('data', (c: string) => onData(c, resolve));
    setTimeout(resolve, 90_000).unref();
  });
  proc.kill('SIGTERM');
  await new Promise((resolve) => proc.on('exit', resolve));
  if (!confirmed || committedAt === undefined)
    throw new Error(`run ${run}: no confirmation seen (committed ${committedAt}, confirmed ${JSON.stringify(confirmed)})`);
  return { latency: confirmed.time - committedAt, seconds: confirmed.seconds, signed: confirmed.signed };
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-confirm-'));
try {
  const built = await buildVersions({ out: path.join(dir, 'versions'), versions: ['genesis', 'v2'] });
  const bins = { genesis: built.versions.genesis?.bin as string, v2: built.versions.v2?.bin as string };
  console.log(`manual upgrade at H=${height}, 50 ms blocks, 10 simulated peers back over 2 s, ${runs} run(s)`);
  const builds: [string, string][] = [['this build', chainvisor], ...(values.compare ? [['compared', path.resolve(values.compare)] as [string, string]] : [])];
  const latencies = new Map<string, number[]>(builds.map(([name]) => [name, []]));
  for (let i = 0; i < runs; i++) {
    for (const [name, cv] of builds) {
      const r = await once(dir, bins, `${i}-${latencies.size > 1 ? name.replace(' ', '-') : ''}`, cv);
      latencies.get(name)?.push(r.latency);
      console.log(
        `  run ${i + 1}${builds.length > 1 ? ` (${name})` : ''}: block ${height + 1} committed → upgrade-confirmed ${r.latency} ms (switch → block ${r.seconds} s, signed ${String(r.signed)})`,
      );
    }
  }
  for (const [name, list] of latencies) {
    const sorted = [...list].sort((a, b) => a - b);
    const median =
      sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2] : ((sorted[sorted.length / 2 - 1] as number) + (sorted[sorted.length / 2] as number)) / 2;
    console.log(`${builds.length > 1 ? `${name}: ` : ''}median ${median} ms, min ${sorted[0]} ms, max ${sorted.at(-1)} ms`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
