/**
 * Switch latency: time from the node writing upgrade-info.json to the new binary starting.
 *
 * One chainvisor run per mode walks a chain of upgrades genesis → u1 → … → uN. Each fake node (a bash
 * script) stamps the clock just before it writes the plan and stays up (the halt style of real nodes,
 * so detection goes through the watcher, not the process exit); the next binary stamps the clock as
 * its first action. The plan is written as the Cosmos SDK writes it (os.WriteFile: truncate and write
 * in place), with a shell builtin, and the stamps are bash's $EPOCHREALTIME: the fake node forks no
 * program of its own on either side, so its own cost is only its start. Backups are skipped;
 * `pre-upgrade` runs (exit 1, "not implemented"), as it does on every real upgrade.
 *
 * Warm and cold: the chain of N upgrades in one `run` is warm after its first upgrade (every code path of
 * the switch has run before in that process). In production an upgrade is the first, and usually the
 * only, upgrade of its `run` process: the cold mode starts one `run` per upgrade (genesis → u1, N times),
 * so each switch is the process's first; both are measured in one run of the benchmark, alternating.
 * In the cold mode the node halts `--idle` after its start (200ms by default); a real node has run for
 * days, and on some machines an idle process wakes slowly (`--idle 5s` shows it).
 *
 * The baseline is what no supervisor can avoid: fork+exec of bash stamping the clock. The
 * supervisor-added time is the latency minus that baseline's median. The floor is the least a Node.js
 * program does at a switch (bench/support/least-switch.ts: fs.watch, a synchronous read, SIGKILL,
 * pre-upgrade, a rename, the spawn), measured cold beside chainvisor's cold switches: what chainvisor
 * adds over it is chainvisor's own cost; the rest is Node.js's and the machine's.
 *
 *   npm run bench:switch -- [--upgrades 20] [--poll-interval 300ms] [--cold 20] [--idle 200ms] [--bin path/to/bin/chainvisor.js] [--compare path/to/other/bin/chainvisor.js] [--channels slow]
 *
 * `--bin` and `--compare` take a build's bin/chainvisor.js, or the release executable. `--compare`
 * measures that other build's cold switches too, alternating with this one's and the floor's in the same
 * minutes: a before and after on a shared, noisy machine.
 *
 * `--channels slow` measures each mode again with Slack, Discord, Telegram and PagerDuty configured
 * against a local fake that answers each request after 2 s (issue #27): the switch must not notice.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { execa, execaSync } from 'execa';

import { parseDuration } from '../src/config/index.js';
import { startAlertServices } from '../test/support/alert-services.js';
import { commandOf } from './support/build-command.js';

const { values } = parseArgs({
  options: {
    upgrades: { type: 'string', default: '20' },
    'poll-interval': { type: 'string', default: '300ms' },
    cold: { type: 'string', default: '20' },
    idle: { type: 'string', default: '200ms' },
    bin: { type: 'string' },
    compare: { type: 'string' },
    channels: { type: 'string' },
  },
});
const upgrades = Number(values.upgrades);
const coldRuns = Number(values.cold);
/** The chainvisor measured: this checkout's, or another build's (`--bin`) to compare two versions on one machine. */
const chainvisor = values.bin === undefined ? path.resolve(fileURLToPath(import.meta.url), '../../../bin/chainvisor.js') : path.resolve(values.bin);
/** Another build, measured cold beside it (`--compare`). */
const compare = values.compare === undefined ? undefined : path.resolve(values.compare);
const pollInterval = values['poll-interval'];
const parsedPoll = parseDuration(pollInterval);
if (!parsedPoll.ok) throw new Error(`--poll-interval: ${parsedPoll.message}`);
const pollMs = parsedPoll.value;
const parsedIdle = parseDuration(values.idle);
if (!parsedIdle.ok) throw new Error(`--idle: ${parsedIdle.message}`);
const idleMs = parsedIdle.value;
/** The floor: the least a Node.js program does at a switch. */
const leastSwitch = path.resolve(fileURLToPath(import.meta.url), '../support/least-switch.js');

function nodeScript(label: string, journal: string, next: string | undefined, height: number, delayMs: number): string {
  const lines = ['#!/bin/bash', '[ "$1" = pre-upgrade ] && exit 1', `echo "start ${label} $EPOCHREALTIME" >> '${journal}'`];
  if (next === undefined) {
    lines.push('exit 0');
  } else {
    lines.push(
      // Delays spread over one poll period, so that poll mode is not measured at one lucky phase.
      `sleep ${(delayMs / 1000).toFixed(3)}`,
      'D="$DAEMON_HOME/data"; mkdir -p "$D"',
      `echo "write ${label} $EPOCHREALTIME" >> '${journal}'`,
      `printf '%s' '{"name":"${next}","time":"0001-01-01T00:00:00Z","height":${height}}' > "$D/upgrade-info.json"`,
      'while :; do sleep 1; done',
    );
  }
  return `${lines.join('\n')}\n`;
}

/** bash's $EPOCHREALTIME ("seconds.microseconds") in ms. */
const epochMs = (stamp: string) => Number(stamp) * 1000;

interface ChainOptions {
  extraEnv?: Record<string, string>;
  /** How long the first node runs before it halts (later ones: spread over a poll period). */
  firstDelayMs?: number;
  /** The least-switch floor instead of chainvisor (one upgrade). */
  least?: boolean;
  /** Another chainvisor than the one measured (`--compare`). */
  bin?: string;
}

/** One `run` walking `length` upgrades; the latency of each switch, in ms. */
async function runChain(mode: 'auto' | 'poll', length: number, options: ChainOptions = {}): Promise<number[]> {
  const extraEnv = options.extraEnv ?? {};
  const bin = options.bin ?? chainvisor;
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-bench-'));
  try {
    const home = path.join(root, 'home');
    const journal = path.join(root, 'journal');
    const env = {
      ...process.env,
      DAEMON_HOME: home,
      DAEMON_NAME: 'simd',
      UNSAFE_SKIP_BACKUP: 'true',
      DAEMON_POLL_INTERVAL: pollInterval,
      CHAINVISOR_WATCH: mode,
      COSMOVISOR_DISABLE_LOGS: 'true',
      // $EPOCHREALTIME's decimal point follows the locale.
      LC_ALL: 'C',
      ...extraEnv,
    };
    // A node's home has its data/ folder from its own init on (the chain's database lives there): the
    // first plan is then written into a folder the watch already follows, as in production. Without
    // it, the first switch of a run would also measure data/ appearing under the watch.
    await fs.mkdir(path.join(home, 'data'), { recursive: true });
    const names = ['genesis', ...Array.from({ length }, (_, i) => `u${i + 1}`)];
    for (const [i, name] of names.entries()) {
      const script = path.join(root, name);
      const delayMs = i === 0 && options.firstDelayMs !== undefined ? options.firstDelayMs : 200 + (pollMs * i) / names.length;
      await fs.writeFile(script, nodeScript(name, journal, names[i + 1], 100 * (i + 1), delayMs), { mode: 0o755 });
      if (options.least) continue;
      const args = name === 'genesis' ? ['init', script] : ['add-upgrade', name, script];
      await execa(...commandOf(bin, args), { env });
    }
    const [file, command] = options.least
      ? [process.execPath, [leastSwitch, home, ...names.slice(0, 2).map((name) => path.join(root, name))]]
      : commandOf(bin, ['run', 'start']);
    const run = await execa(file, command, { env, reject: false, timeout: 120_000 });
    if (run.exitCode !== 0) throw new Error(`${options.least ? 'least-switch' : 'chainvisor'} exited ${run.exitCode}: ${run.stderr}`);
    const stamps = new Map<string, number>();
    for (const line of (await fs.readFile(journal, 'utf8')).trim().split('\n')) {
      const [kind, label, stamp] = line.split(' ');
      stamps.set(`${kind} ${label}`, epochMs(stamp as string));
    }
    return names.slice(0, -1).map((name, i) => {
      const written = stamps.get(`write ${name}`);
      const started = stamps.get(`start ${names[i + 1]}`);
      if (written === undefined || started === undefined) throw new Error(`missing stamps for ${name}`);
      return started - written;
    });
  } finally {
    await fs.rm(root, { recursive: true, force: true });
  }
}

/** The unavoidable part: fork+exec of bash stamping the clock, from a bash that stamped it. */
function baseline(samples: number): number[] {
  const script = `for i in $(seq ${samples}); do a=$EPOCHREALTIME; b=$(bash -c 'echo $EPOCHREALTIME'); echo "$a $b"; done`;
  return execaSync('bash', ['-c', script], { env: { ...process.env, LC_ALL: 'C' } })
    .stdout.trim()
    .split('\n')
    .map((line) => {
      const [a, b] = line.split(' ').map(Number) as [number, number];
      return epochMs(String(b)) - epochMs(String(a));
    });
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/**
 * The differences of runs made side by side (the i-th of each, in the same minute): on a shared machine
 * whose speed drifts, their median says more than the difference of two medians.
 */
const pairedWith = (a: number[], b: number[]) => a.map((value, i) => value - (b[i] as number));

const fmt = (ms: number) => `${ms.toFixed(1)} ms`.padStart(10);

const base = baseline(50);
const baseP50 = percentile(base, 50);
console.log(`switch latency: ${upgrades} upgrades per mode, node ${process.version}, ${os.cpus().length} cpus`);
console.log(`baseline (fork+exec of bash stamping the clock): p50 ${baseP50.toFixed(1)} ms\n`);
console.log(`${'mode'.padEnd(38)}${'p50'.padStart(10)}${'p95'.padStart(10)}${'max'.padStart(10)}${'added p50'.padStart(12)}`);
const row = (label: string, latencies: number[]) => {
  const p50 = percentile(latencies, 50);
  console.log(`${label.padEnd(38)}${fmt(p50)}${fmt(percentile(latencies, 95))}${fmt(Math.max(...latencies))}${fmt(Math.max(0, p50 - baseP50)).padStart(12)}`);
  return p50;
};
if (values.channels !== undefined && values.channels !== 'slow') throw new Error('--channels: only `slow` is known');
const services = values.channels === 'slow' ? await startAlertServices() : undefined;
if (services) services.delayMs = 2000;
for (const env of services ? [{}, services.env] : [{}]) {
  const plain = Object.keys(env).length === 0;
  const suffix = plain ? '' : ', 4 slow channels';
  // Cold: one `run` per upgrade, so that each switch is its process's first; the floor alternating with it.
  const cold: number[] = [];
  const floor: number[] = [];
  const compared: number[] = [];
  for (let i = 0; i < coldRuns; i++) {
    cold.push(...(await runChain('auto', 1, { extraEnv: env, firstDelayMs: idleMs })));
    if (plain) floor.push(...(await runChain('auto', 1, { firstDelayMs: idleMs, least: true })));
    if (compare) compared.push(...(await runChain('auto', 1, { extraEnv: env, firstDelayMs: idleMs, bin: compare })));
  }
  row(`events (auto), warm${suffix}`, await runChain('auto', upgrades, { extraEnv: env }));
  if (coldRuns > 0) {
    const coldP50 = row(`events (auto), cold ×${coldRuns}, up ${values.idle}${suffix}`, cold);
    if (floor.length > 0) {
      const floorP50 = row(`floor: least-switch, cold, up ${values.idle}`, floor);
      console.log(`  chainvisor's own cost, cold: p50 ${(coldP50 - floorP50).toFixed(1)} ms over the floor (ratio ${(coldP50 / floorP50).toFixed(2)})`);
      console.log(`  paired (each cold switch minus the floor run beside it): p50 ${percentile(pairedWith(cold, floor), 50).toFixed(1)} ms`);
      if (compared.length > 0) {
        const comparedP50 = row(`--compare, cold ×${coldRuns}, up ${values.idle}${suffix}`, compared);
        console.log(
          `  --compare's own cost, cold: p50 ${(comparedP50 - floorP50).toFixed(1)} ms over the floor (ratio ${(comparedP50 / floorP50).toFixed(2)})`,
        );
        const paired = [pairedWith(compared, floor), pairedWith(cold, compared)].map((d) => percentile(d, 50).toFixed(1));
        console.log(`  paired: --compare minus the floor p50 ${paired[0]} ms; this build minus --compare p50 ${paired[1]} ms`);
      }
    }
  }
  row(`poll ${pollInterval}, warm${suffix}`, await runChain('poll', upgrades, { extraEnv: env }));
}
if (services) {
  console.log(`\nslow fake services received ${services.requests.length} requests`);
  await services.close();
}
