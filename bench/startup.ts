/**
 * Start-up time and idle memory of the two ways chainvisor is run: `node bin/chainvisor.js` (on the Node
 * running this bench) and the release executable (`npm run release` first); with `--compare`
 * (repeatable), another build's bin/chainvisor.js (run on this Node) or release executable too. `help`,
 * `--version`, `version` and `status` are run interleaved (one of each entry in turn, so that other
 * load on the machine hits all alike), timed from exec to exit (wall and CPU time); printed as median
 * and spread (min–max). Then `run` of each entry, supervising a fake node that sleeps, is left idle and
 * its private memory (RssAnon) and resident set (VmRSS) read from /proc (Linux). Targets for the
 * executable, median on a 2-core machine: help and --version ≤ 40 ms, version (which runs the node's
 * too) ≤ 60 ms; idle RssAnon ≤ 32 MiB.
 *
 *   npm run bench:startup -- [--runs 21] [--idle 5] [--executable release/chainvisor-linux-x64] [--compare /tmp/base/bin/chainvisor.js]…
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(fileURLToPath(import.meta.url), '../../..');
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '21' },
    idle: { type: 'string', default: '5' },
    executable: { type: 'string', default: path.join(root, 'release', 'chainvisor-linux-x64') },
    compare: { type: 'string', multiple: true },
  },
});
const runs = Number(values.runs);
const idleSeconds = Number(values.idle);

interface Entry {
  name: string;
  command(args: string[]): [string, string[]];
}

const entries: Entry[] = [
  { name: `node bin/chainvisor.js (Node ${process.version})`, command: (args) => [process.execPath, [path.join(root, 'bin', 'chainvisor.js'), ...args]] },
];
const executable = path.resolve(values.executable);
if (existsSync(executable)) entries.push({ name: path.relative(root, executable) || executable, command: (args) => [executable, args] });
else console.log(`no executable at ${executable}: run 'npm run release' first; measuring node bin/chainvisor.js only`);
for (const other of (values.compare ?? []).map((file) => path.resolve(file))) {
  const command = other.endsWith('.js')
    ? (args: string[]): [string, string[]] => [process.execPath, [other, ...args]]
    : (args: string[]): [string, string[]] => [other, args];
  entries.push({ name: `compared: ${other}`, command });
}

/**
 * Runs the command once under bash's `time` (wait4's figures, to the millisecond): the wall time from
 * exec to exit, and the CPU time (user + system) it used. CPU time barely moves with other load on the
 * machine, which makes it the steadier of the two when the machine is busy.
 */
function timeOnce([file, args]: [string, string[]], env: NodeJS.ProcessEnv): Promise<{ wall: number; cpu: number }> {
  return new Promise((resolve, reject) => {
    const script = 'TIMEFORMAT="%3R %3U %3S"; { time "$0" "$@" >/dev/null 2>&1; } 2>&1';
    const child = spawn('bash', ['-c', script, file, ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const [real, user, sys] = out.trim().split(/\s+/).map(Number) as [number, number, number];
      if (code !== 0 || !Number.isFinite(real)) reject(new Error(`${file} ${args.join(' ')} exited ${code}: ${out}`));
      else resolve({ wall: real * 1000, cpu: (user + sys) * 1000 });
    });
  });
}

function stats(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] as number;
  return `${median.toFixed(1)} ms (${(sorted[0] as number).toFixed(1)}–${(sorted[sorted.length - 1] as number).toFixed(1)})`;
}

async function procMemory(pid: number): Promise<{ rssAnonKb: number; vmRssKb: number }> {
  const text = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return { rssAnonKb: field('RssAnon'), vmRssKb: field('VmRSS') };
}

const mib = (kb: number) => `${(kb / 1024).toFixed(1)} MiB`;

const work = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-startup-'));
try {
  const home = path.join(work, 'home');
  const node = path.join(work, 'simd');
  await fs.mkdir(home);
  // Answers `version` at once; otherwise sleeps (in the background, so that SIGTERM ends it at once).
  await fs.writeFile(
    node,
    '#!/bin/sh\n[ "$1" = version ] && { echo v1.0.0; exit 0; }\ntrap \'kill $! 2>/dev/null; exit 143\' TERM\nwhile :; do sleep 3600 & wait $!; done\n',
    { mode: 0o755 },
  );
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', DAEMON_HOME: home, DAEMON_NAME: 'simd', UNSAFE_SKIP_BACKUP: 'true', CHAINVISOR_LOG_FORMAT: 'json' };
  await timeOnce((entries[0] as Entry).command(['init', node]), env);

  const commands = [['help'], ['--version'], ['version'], ['status']];
  const samples = new Map<string, number[]>();
  const cpu = new Map<string, number[]>();
  // One round first, not counted: it fills the page cache with each file.
  for (let round = -1; round < runs; round++) {
    for (const args of commands) {
      for (const entry of entries) {
        const { wall, cpu: used } = await timeOnce(entry.command(args), env);
        if (round < 0) continue;
        const key = `${args.join(' ')}\0${entry.name}`;
        samples.set(key, [...(samples.get(key) ?? []), wall]);
        cpu.set(key, [...(cpu.get(key) ?? []), used]);
      }
    }
  }
  console.log(
    `${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; ${runs} runs of each, interleaved`,
  );
  console.log('wall time, exec to exit: median (min–max)');
  console.log(['command', ...entries.map((e) => e.name)].join(' | '));
  for (const args of commands) {
    console.log([args.join(' '), ...entries.map((e) => stats(samples.get(`${args.join(' ')}\0${e.name}`) ?? []))].join(' | '));
  }
  console.log('CPU time (user + system): median (min–max)');
  for (const args of commands) {
    console.log([args.join(' '), ...entries.map((e) => stats(cpu.get(`${args.join(' ')}\0${e.name}`) ?? []))].join(' | '));
  }

  const memory: string[] = [];
  for (const entry of entries) {
    const [file, args] = entry.command(['run', 'start']);
    const child = spawn(file, args, { env, stdio: 'ignore' });
    await sleep(idleSeconds * 1000);
    const { rssAnonKb, vmRssKb } = await procMemory(child.pid as number);
    child.kill('SIGTERM');
    await new Promise((resolve) => child.on('exit', resolve));
    memory.push(`${entry.name}: RssAnon ${mib(rssAnonKb)}, VmRSS ${mib(vmRssKb)}`);
  }
  console.log(`idle run (a fake node that sleeps, after ${idleSeconds} s):`);
  for (const line of memory) console.log(`  ${line}`);
} finally {
  await fs.rm(work, { recursive: true, force: true });
}
