/**
 * Idle cost of `chainvisor run` with the HTTP endpoint on: a fake node that only sleeps, a scrape of
 * /metrics, /healthz and /status every 15 s (as Prometheus would), and chainvisor's own process read
 * from /proc (Linux): resident memory (VmRSS, and its peak VmHWM) and CPU time over the measured
 * window, after a warm-up that leaves out start-up. Targets: RSS ≤ 60 MB, CPU ≤ 0.2 %.
 *
 *   [DAEMON_POLL_INTERVAL=5s] npm run bench:idle -- [--seconds 60] [--scrape 15] [--endpoint on|off] [--warmup 10]
 */
import { execa } from 'execa';
import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const chainvisor = path.resolve(fileURLToPath(import.meta.url), '../../../bin/chainvisor.js');
const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    scrape: { type: 'string', default: '15' },
    endpoint: { type: 'string', default: 'on' },
    warmup: { type: 'string', default: '10' },
  },
});
const seconds = Number(values.seconds);
const scrapeEvery = Number(values.scrape);
const endpointOn = values.endpoint !== 'off';
const warmupMs = Number(values.warmup) * 1000;
const clockTicks = 100; // USER_HZ on Linux

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

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

async function procStatus(pid: number): Promise<{ rssKb: number; hwmKb: number }> {
  const text = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return { rssKb: field('VmRSS'), hwmKb: field('VmHWM') };
}

async function cpuTicks(pid: number): Promise<number> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime
}

const root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-idle-'));
try {
  const home = path.join(root, 'home');
  const node = path.join(root, 'sleeper');
  await fs.mkdir(home, { recursive: true });
  // Sleeps in the background and waits, so the TERM trap runs at once (and takes its sleep along).
  await fs.writeFile(node, "#!/bin/sh\ntrap 'kill $! 2>/dev/null; exit 143' TERM\nwhile :; do sleep 3600 & wait $!; done\n", { mode: 0o755 });
  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    DAEMON_HOME: home,
    DAEMON_NAME: 'simd',
    UNSAFE_SKIP_BACKUP: 'true',
    CHAINVISOR_LOG_FORMAT: 'json',
    // Compare with a slower poll (the file watcher's safety net polls every 300 ms by default).
    ...(process.env.DAEMON_POLL_INTERVAL ? { DAEMON_POLL_INTERVAL: process.env.DAEMON_POLL_INTERVAL } : {}),
    ...(endpointOn ? { CHAINVISOR_HTTP_ADDRESS: `127.0.0.1:${port}` } : {}),
  };
  await execa(process.execPath, [chainvisor, 'init', node], { env, extendEnv: false });
  const child = execa(process.execPath, [chainvisor, 'run', 'start'], { env, extendEnv: false, reject: false, stdio: 'ignore' });
  const pid = child.pid as number;
  await sleep(warmupMs);
  // One scrape before measuring: the first one compiles the handlers (a one-off, not idle cost).
  if (endpointOn) for (const route of ['/metrics', '/healthz', '/status']) await get(`http://127.0.0.1:${port}${route}`);
  const startTicks = await cpuTicks(pid);
  const started = Date.now();
  let scrapes = 0;
  let peakRssKb = 0;
  for (let t = 0; t < seconds; t += scrapeEvery) {
    if (endpointOn) {
      for (const route of ['/metrics', '/healthz', '/status']) {
        const status = await get(`http://127.0.0.1:${port}${route}`);
        if (route !== '/healthz' && status !== 200) throw new Error(`${route} answered ${status}`);
      }
      scrapes += 1;
    }
    peakRssKb = Math.max(peakRssKb, (await procStatus(pid)).rssKb);
    await sleep(Math.min(scrapeEvery, seconds - t) * 1000);
  }
  const cpu = ((await cpuTicks(pid)) - startTicks) / clockTicks;
  const wall = (Date.now() - started) / 1000;
  const { rssKb, hwmKb } = await procStatus(pid);
  child.kill('SIGTERM');
  await child;
  const mb = (kb: number): string => (kb / 1024).toFixed(1);
  console.log(`chainvisor run, endpoint ${endpointOn ? 'on' : 'off'}, Node ${process.version}, ${wall.toFixed(0)} s measured after ${warmupMs / 1000} s warm-up, ${scrapes} scrapes`);
  console.log(`RSS now ${mb(rssKb)} MB, highest sampled ${mb(Math.max(peakRssKb, rssKb))} MB, peak since start (VmHWM) ${mb(hwmKb)} MB   (target ≤ 60 MB)`);
  console.log(`CPU ${((cpu / wall) * 100).toFixed(3)} % (${cpu.toFixed(2)} s of CPU in ${wall.toFixed(0)} s)   (target ≤ 0.2 %)`);
} finally {
  await fs.rm(root, { recursive: true, force: true });
}
