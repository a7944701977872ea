/**
 * Idle cost of `chainvisor run` with the default settings, beside a node that does nothing, in two
 * cases: a node with no gRPC listening (many validators turn it off; the plan watch cannot read the
 * chain) and the simulated chain with its gRPC on (the plan watch reads the plan and height every
 * CHAINVISOR_PLAN_POLL_INTERVAL). chainvisor's own process is read from /proc (Linux): CPU time of all
 * its threads in nanoseconds (/proc/<pid>/task/*\/schedstat) over the measured window, after a warm-up
 * that leaves out start-up, and resident memory (VmRSS, RssAnon). Target: CPU ≤ 0.1 %.
 *
 * `--vs <path to another checkout's bin/chainvisor.js>` measures that one too, case by case, in turn with
 * this one, so a before/after comparison shares the machine's moment.
 *
 *   npm run bench:idle -- [--seconds 60] [--warmup 10] [--rounds 1] [--case all|no-grpc|grpc]
 *                         [--endpoint on|off] [--scrape 15] [--vs ../other/bin/chainvisor.js]
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { buildVersions } from '@chainvisor/simd';
import { execa } from 'execa';

import { unusedPort } from '../test/support/ports.js';
import { cpuNs, memory } from './support/proc-stats.js';

const thisBin = path.resolve(fileURLToPath(import.meta.url), '../../../bin/chainvisor.js');
const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    warmup: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '1' },
    case: { type: 'string', default: 'all' },
    endpoint: { type: 'string', default: 'off' },
    scrape: { type: 'string', default: '15' },
    vs: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const warmupMs = Number(values.warmup) * 1000;
const scrapeEvery = Number(values.scrape);
const endpointOn = values.endpoint === 'on';
const bins: Array<[string, string]> = [['this checkout', thisBin], ...(values.vs ? [['--vs', path.resolve(values.vs)] as [string, string]] : [])];
const cases = values.case === 'all' ? (['no-grpc', 'grpc'] as const) : ([values.case] as Array<'no-grpc' | 'grpc'>);

function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

interface Result {
  cpuPercent: number;
  rssMiB: number;
  anonMiB: number;
}

const root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-idle-'));
try {
  // Sleeps in the background and waits, so the TERM trap runs at once (and takes its sleep along).
  const sleeper = path.join(root, 'sleeper');
  await fs.writeFile(sleeper, "#!/bin/sh\ntrap 'kill $! 2>/dev/null; exit 143' TERM\nwhile :; do sleep 3600 & wait $!; done\n", { mode: 0o755 });
  const simd = cases.includes('grpc')
    ? ((await buildVersions({ out: path.join(root, 'versions'), versions: ['genesis'] })).versions.genesis?.bin as string)
    : '';

  async function measure(bin: string, which: 'no-grpc' | 'grpc', round: number): Promise<Result> {
    const home = path.join(root, `home-${which}-${round}-${bins.findIndex(([, b]) => b === bin)}`);
    await fs.mkdir(home, { recursive: true });
    const grpcPort = await unusedPort();
    const httpPort = await unusedPort();
    // The defaults, but for the gRPC address: a free loopback port (nothing listens there without gRPC).
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      DAEMON_HOME: home,
      DAEMON_NAME: 'simd',
      UNSAFE_SKIP_BACKUP: 'true',
      CHAINVISOR_LOG_FORMAT: 'json',
      DAEMON_GRPC_ADDRESS: `127.0.0.1:${grpcPort}`,
      ...(endpointOn ? { CHAINVISOR_HTTP_ADDRESS: `127.0.0.1:${httpPort}` } : {}),
    };
    let nodeArgs: string[] = ['start'];
    if (which === 'grpc') {
      await execa(simd, ['init', 'idle', '--home', home]);
      nodeArgs = [
        'start',
        '--home',
        home,
        '--block-time',
        '5s',
        '--grpc.address',
        `127.0.0.1:${grpcPort}`,
        '--rpc.laddr',
        'tcp://127.0.0.1:0',
        '--api.address',
        'tcp://127.0.0.1:0',
      ];
    }
    await execa(process.execPath, [bin, 'init', which === 'grpc' ? simd : sleeper], { env, extendEnv: false });
    const child = execa(process.execPath, [bin, 'run', ...nodeArgs], { env, extendEnv: false, reject: false, stdio: 'ignore' });
    const pid = child.pid as number;
    try {
      await sleep(warmupMs);
      if (endpointOn) for (const route of ['/metrics', '/healthz', '/status']) await get(`http://127.0.0.1:${httpPort}${route}`);
      const startNs = await cpuNs(pid);
      const started = process.hrtime.bigint();
      for (let t = 0; t < seconds; t += scrapeEvery) {
        if (endpointOn) for (const route of ['/metrics', '/healthz', '/status']) await get(`http://127.0.0.1:${httpPort}${route}`);
        await sleep(Math.min(scrapeEvery, seconds - t) * 1000);
      }
      const cpu = (await cpuNs(pid)) - startNs;
      const wallNs = Number(process.hrtime.bigint() - started);
      const mem = await memory(pid);
      return { cpuPercent: (cpu / wallNs) * 100, rssMiB: mem.rss, anonMiB: mem.anon };
    } finally {
      child.kill('SIGTERM');
      await child;
    }
  }

  const results = new Map<string, Result[]>();
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const which of cases) {
      for (const [name, bin] of bins) {
        const r = await measure(bin, which, round);
        const key = `${which}\t${name}`;
        results.set(key, [...(results.get(key) ?? []), r]);
        console.error(
          `  round ${round + 1}, ${which}, ${name}: CPU ${r.cpuPercent.toFixed(3)} %, VmRSS ${r.rssMiB.toFixed(1)} MiB, RssAnon ${r.anonMiB.toFixed(1)} MiB`,
        );
      }
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  console.log(
    `chainvisor run idle, default settings${endpointOn ? ` with the HTTP endpoint scraped every ${scrapeEvery} s` : ''}, Node ${process.version}, ${seconds} s measured after ${warmupMs / 1000} s, ${values.rounds} round(s); target CPU ≤ 0.1 %`,
  );
  console.log('case      entry          CPU % (median, min–max)   VmRSS MiB   RssAnon MiB');
  for (const [key, rs] of results) {
    const [which, name] = key.split('\t');
    const cpu = rs.map((r) => r.cpuPercent);
    console.log(
      `${which?.padEnd(9)} ${name?.padEnd(14)} ${median(cpu).toFixed(3)} (${Math.min(...cpu).toFixed(3)}–${Math.max(...cpu).toFixed(3)})`.padEnd(57) +
        `${median(rs.map((r) => r.rssMiB))
          .toFixed(1)
          .padStart(6)}   ${median(rs.map((r) => r.anonMiB))
          .toFixed(1)
          .padStart(8)}`,
    );
  }
} finally {
  await fs.rm(root, { recursive: true, force: true });
}
