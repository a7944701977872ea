/**
 * What the twin check (issue #32, docs/double-sign.md) costs, with the network RPC on loopback: a
 * simulated node ("the network") whose peers include this validator's key, signing every block at
 * heights below this home's signing state, so every check is clear and reads real commits.
 *
 *   start   `chainvisor run` of a fake node that stamps its start and exits: from the spawn to the
 *           node's stamp, without CHAINVISOR_NETWORK_RPC and with it (a cold check of the newest 50
 *           commits, its own duration read from the `twin-checked` line's `ms`); and with an RPC that
 *           accepts connections and never answers, which must cost CHAINVISOR_TWIN_TIMEOUT and no more.
 *   switch  a cold upgrade switch (one `run` per switch, genesis → u1, as bench:switch's cold mode):
 *           from the plan written to the new binary's start, without the RPC, with a network halted
 *           (the network at an upgrade height: the check at the switch reads one /status) and with one
 *           moving at 1 s blocks (a commit or two more).
 *   idle    CPU of `run` beside the simulated chain (5 s blocks, gRPC on), from /proc: without the RPC,
 *           with a network RPC of that chain (5 s blocks: a reading every 5 s), and with one at 1 s blocks
 *           (a reading every second: the most the watch ever does). Every mode at once, each on its own home, over the same window; with --compare, another
 *           build's (its bin/chainvisor.js or a release executable) beside them, for a ratio taken in the
 *           same minutes (idle only).
 *
 *   npm run bench:twin -- [--runs 15] [--seconds 60] [--warmup 20] [--only start,switch,idle] [--compare <chainvisor>]
 *
 * Goals: at most 20 ms added at the switch; a start never delayed by more than CHAINVISOR_TWIN_TIMEOUT;
 * idle CPU at most 0.1 %.
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { buildVersions, readAddresses } from '@chainvisor/simd';
import { execa, type ResultPromise } from 'execa';

import { unusedPort } from '../test/support/ports.js';
import { commandOf } from './support/build-command.js';
import { cpuNs } from './support/proc-stats.js';

const chainvisor = path.resolve(fileURLToPath(import.meta.url), '../../../bin/chainvisor.js');
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '15' },
    seconds: { type: 'string', default: '60' },
    warmup: { type: 'string', default: '20' },
    only: { type: 'string', default: 'start,switch,idle' },
    compare: { type: 'string' },
  },
});
const runs = Number(values.runs);
const only = new Set(values.only.split(','));

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};
const range = (xs: number[]): string => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
/** bash's $EPOCHREALTIME ("seconds.microseconds") in ms. */
const epochMs = (stamp: string): number => Number(stamp) * 1000;

const root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-twin-bench-'));
/**
 * A process this benchmark started, as it uses one: a narrow type, because checking one of execa's
 * results against another instance of its whole generic type costs the compiler over 2 s.
 */
type Started = Pick<ResultPromise, 'pid' | 'kill'> & PromiseLike<{ exitCode?: number }>;
const children: Started[] = [];
try {
  const simd = (await buildVersions({ out: path.join(root, 'versions'), versions: ['genesis'] })).versions.genesis?.bin as string;
  // The validator: its key and genesis (chain sim-1).
  const validator = path.join(root, 'validator');
  await execa(simd, ['init', 'validator', '--home', validator]);
  const keyFile = path.join(validator, 'config', 'priv_validator_key.json');
  // Its signing state is far above any height of the networks below: every check is clear, with its own
  // signature in every commit read (as for a validator that signs every block).
  await fs.writeFile(path.join(validator, 'data', 'priv_validator_state.json'), JSON.stringify({ height: '1000000000', round: 0, step: 3 }));

  /** A network node signing with the validator's key at every height; `extra`: its block time, a halt. */
  async function startNetwork(name: string, extra: string[]): Promise<{ rpc: string; height: () => Promise<number> }> {
    const home = path.join(root, name);
    await execa(simd, ['init', name, '--home', home]);
    const args = [
      'start',
      '--home',
      home,
      '--rpc.laddr',
      'tcp://127.0.0.1:0',
      '--grpc.enable=false',
      '--sim-peers-power',
      '3000000',
      '--sim-peer-key',
      keyFile,
    ];
    const child = execa(simd, [...args, ...extra], { stdio: 'ignore', reject: false });
    children.push(child);
    for (;;) {
      const a = await readAddresses(home).catch(() => undefined);
      if (a !== undefined && a.pid === child.pid) {
        const rpc = a.rpc.replace('tcp:', 'http:');
        const height = async () =>
          Number(
            ((await (await fetch(`${rpc}/status`)).json()) as { result: { sync_info: { latest_block_height: string } } }).result.sync_info.latest_block_height,
          );
        return { rpc, height };
      }
      await sleep(50);
    }
  }

  /** A home for fake nodes with the validator's files: genesis, key, signing state. */
  async function fakeHome(name: string): Promise<string> {
    const home = path.join(root, name);
    await fs.mkdir(path.join(home, 'config'), { recursive: true });
    await fs.mkdir(path.join(home, 'data'), { recursive: true });
    for (const file of ['config/genesis.json', 'config/priv_validator_key.json', 'data/priv_validator_state.json'])
      await fs.copyFile(path.join(validator, file), path.join(home, file));
    return home;
  }

  const baseEnv = (home: string): Record<string, string> => ({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    DAEMON_HOME: home,
    DAEMON_NAME: 'simd',
    UNSAFE_SKIP_BACKUP: 'true',
    CHAINVISOR_LOG_FORMAT: 'json',
    CHAINVISOR_PLAN_POLL_INTERVAL: '0s',
    LC_ALL: 'C',
  });
  /** The `ms` of each twin-check line at a start, in order. */
  const checkMs = (stderr: string): number[] =>
    stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { event?: string; ms?: number })
      .filter((l) => (l.event === 'twin-checked' || l.event === 'twin-unchecked') && typeof l.ms === 'number')
      .map((l) => l.ms as number);

  console.log(`twin check: node ${process.version}, ${os.cpus().length} cpus, load ${os.loadavg()[0]?.toFixed(1)}`);
  const halted = await startNetwork('network-halted', ['--block-time', '100ms', '--halt-height', '60', '--halt-mode', 'stay']);
  const moving = await startNetwork('network-moving', ['--block-time', '1s']);
  // The chain beside which bench:idle measures makes a block every 5 s: the network RPC serves the same chain.
  const sameChain = only.has('idle') ? await startNetwork('network-5s', ['--block-time', '5s']) : moving;
  while ((await halted.height()) < 60) await sleep(200);

  if (only.has('start')) {
    const home = await fakeHome('start');
    const journal = path.join(root, 'start-journal');
    const node = path.join(root, 'start-node');
    await fs.writeFile(node, `#!/bin/bash\necho "$EPOCHREALTIME" >> '${journal}'\nexit 0\n`, { mode: 0o755 });
    await execa(process.execPath, [chainvisor, 'init', node], { env: baseEnv(home), extendEnv: false });
    // A port that accepts and never answers: the check may cost CHAINVISOR_TWIN_TIMEOUT, never more.
    const sink = net.createServer(() => undefined);
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    const blackHole = `http://127.0.0.1:${(sink.address() as net.AddressInfo).port}`;
    const modes: Record<string, Record<string, string>> = {
      'without CHAINVISOR_NETWORK_RPC': {},
      'network RPC, 50 commits': { CHAINVISOR_NETWORK_RPC: halted.rpc },
      'RPC that never answers (timeout 3s)': { CHAINVISOR_NETWORK_RPC: blackHole },
    };
    const totals = new Map<string, number[]>();
    const checks = new Map<string, number[]>();
    for (let i = 0; i < runs; i++) {
      for (const [mode, env] of Object.entries(modes)) {
        if (mode.startsWith('RPC that never') && i >= 3) continue;
        await fs.rm(journal, { force: true });
        const began = Date.now();
        const run = await execa(process.execPath, [chainvisor, 'run', 'start'], { env: { ...baseEnv(home), ...env }, extendEnv: false, reject: false });
        if (run.exitCode !== 0) throw new Error(`run exited ${run.exitCode}: ${run.stderr.slice(-2000)}`);
        const started = epochMs((await fs.readFile(journal, 'utf8')).trim());
        totals.set(mode, [...(totals.get(mode) ?? []), started - began]);
        checks.set(mode, [...(checks.get(mode) ?? []), ...checkMs(run.stderr)]);
      }
    }
    sink.close();
    console.log(`\nstart: spawn of run → the node started, ${runs} runs each (3 for the silent RPC), medians (min–max), ms`);
    const base = median(totals.get('without CHAINVISOR_NETWORK_RPC') as number[]);
    for (const mode of Object.keys(modes)) {
      const total = totals.get(mode) as number[];
      const check = checks.get(mode) ?? [];
      console.log(
        `  ${mode.padEnd(38)} ${median(total).toFixed(1).padStart(8)} (${range(total)})  added ${(median(total) - base).toFixed(1).padStart(7)}${check.length > 0 ? `  check itself ${median(check).toFixed(1)} (${range(check)})` : ''}`,
      );
    }
  }

  if (only.has('switch')) {
    const modes: Record<string, Record<string, string>> = {
      'without CHAINVISOR_NETWORK_RPC': {},
      'network halted at the height': { CHAINVISOR_NETWORK_RPC: halted.rpc },
      'network moving, 1 s blocks': { CHAINVISOR_NETWORK_RPC: moving.rpc },
    };
    const latencies = new Map<string, number[]>();
    const checks = new Map<string, number[]>();
    for (let i = 0; i < runs; i++) {
      for (const [mode, env] of Object.entries(modes)) {
        const home = await fakeHome(`switch-${i}-${Object.keys(modes).indexOf(mode)}`);
        const journal = path.join(home, 'journal');
        const genesis = path.join(home, 'genesis-node');
        const u1 = path.join(home, 'u1-node');
        // As bench:switch's cold mode: the node runs 200 ms, stamps, writes the plan as the SDK does, stays up.
        await fs.writeFile(
          genesis,
          [
            '#!/bin/bash',
            '[ "$1" = pre-upgrade ] && exit 1',
            'sleep 0.2',
            `echo "write $EPOCHREALTIME" >> '${journal}'`,
            `printf '%s' '{"name":"u1","time":"0001-01-01T00:00:00Z","height":100}' > "$DAEMON_HOME/data/upgrade-info.json"`,
            'while :; do sleep 1; done',
            '',
          ].join('\n'),
          { mode: 0o755 },
        );
        await fs.writeFile(u1, `#!/bin/bash\n[ "$1" = pre-upgrade ] && exit 1\necho "start $EPOCHREALTIME" >> '${journal}'\nexit 0\n`, { mode: 0o755 });
        const envOf = { ...baseEnv(home), ...env };
        await execa(process.execPath, [chainvisor, 'init', genesis], { env: envOf, extendEnv: false });
        await execa(process.execPath, [chainvisor, 'add-upgrade', 'u1', u1], { env: envOf, extendEnv: false });
        const run = await execa(process.execPath, [chainvisor, 'run', 'start'], { env: envOf, extendEnv: false, reject: false, timeout: 60_000 });
        if (run.exitCode !== 0) throw new Error(`run exited ${run.exitCode}: ${run.stderr.slice(-2000)}`);
        const stamps = Object.fromEntries(
          (await fs.readFile(journal, 'utf8'))
            .trim()
            .split('\n')
            .map((l) => l.split(' ') as [string, string]),
        );
        latencies.set(mode, [...(latencies.get(mode) ?? []), epochMs(stamps.start as string) - epochMs(stamps.write as string)]);
        const atSwitch = checkMs(run.stderr)[1];
        if (atSwitch !== undefined) checks.set(mode, [...(checks.get(mode) ?? []), atSwitch]);
      }
    }
    console.log(`\ncold switch: upgrade-info.json written → the new binary started, ${runs} runs each, medians (min–max), ms`);
    const base = median(latencies.get('without CHAINVISOR_NETWORK_RPC') as number[]);
    for (const mode of Object.keys(modes)) {
      const l = latencies.get(mode) as number[];
      const check = checks.get(mode) ?? [];
      console.log(
        `  ${mode.padEnd(38)} ${median(l).toFixed(1).padStart(8)} (${range(l)})  added ${(median(l) - base).toFixed(1).padStart(7)}${check.length > 0 ? `  check at the switch ${median(check).toFixed(1)} (${range(check)})` : ''}`,
      );
    }
  }

  if (only.has('idle')) {
    // Every mode of every build at once, each `run` on its own copy of the validator's home, and all
    // measured over the same window: the machine's load falls on all of them alike.
    const seconds = Number(values.seconds);
    const warmupMs = Number(values.warmup) * 1000;
    const builds: [string, string][] = [
      ['this build', chainvisor],
      ...(values.compare === undefined ? [] : [['--compare', path.resolve(values.compare)] as [string, string]]),
    ];
    const modes = [
      ['without CHAINVISOR_NETWORK_RPC', {}],
      ['network RPC, 5 s blocks (the chain)', { CHAINVISOR_NETWORK_RPC: sameChain.rpc }],
      ['network RPC, 1 s blocks (a reading/s)', { CHAINVISOR_NETWORK_RPC: moving.rpc }],
    ] as const;
    const runsOf: { build: string; mode: string; run: Started }[] = [];
    for (const [build, bin] of builds) {
      for (const [mode, env] of modes) {
        const home = path.join(root, `idle-${runsOf.length}`);
        await fs.cp(validator, home, { recursive: true });
        const envOf = { ...baseEnv(home), CHAINVISOR_PLAN_POLL_INTERVAL: '10s', ...env };
        await execa(...commandOf(bin, ['init', simd]), { env: envOf, extendEnv: false });
        const grpc = await unusedPort();
        const nodeArgs = ['start', '--home', home, '--block-time', '5s', '--rpc.laddr', 'tcp://127.0.0.1:0', '--api.address', 'tcp://127.0.0.1:0'];
        const [file, args] = commandOf(bin, ['run', ...nodeArgs, '--grpc.address', `127.0.0.1:${grpc}`, '--sim-peers-power', '3000000', '--sim-not-signing']);
        const run = execa(file, args, { env: { ...envOf, DAEMON_GRPC_ADDRESS: `127.0.0.1:${grpc}` }, extendEnv: false, reject: false, stdio: 'ignore' });
        runsOf.push({ build, mode, run });
      }
    }
    try {
      await sleep(warmupMs);
      // The window in slices of 30 s: the whole window's mean, and the median slice, which leaves out a
      // slice holding a one-off (a collection that V8 makes once after the start's allocations, say).
      const slices = Math.max(1, Math.round(seconds / 30));
      const percents: number[][] = runsOf.map(() => []);
      let totals = runsOf.map(() => 0);
      let elapsed = 0;
      for (let slice = 0; slice < slices; slice++) {
        const before = await Promise.all(runsOf.map(({ run }) => cpuNs(run.pid as number)));
        const started = process.hrtime.bigint();
        await sleep((seconds * 1000) / slices);
        const after = await Promise.all(runsOf.map(({ run }) => cpuNs(run.pid as number)));
        const ns = Number(process.hrtime.bigint() - started);
        elapsed += ns;
        totals = totals.map((total, i) => total + (after[i] as number) - (before[i] as number));
        runsOf.forEach((_, i) => percents[i]?.push((((after[i] as number) - (before[i] as number)) / ns) * 100));
      }
      console.log(
        `\nidle: CPU of run beside the simulated chain (5 s blocks, gRPC on), ${seconds} s after ${values.warmup} s, all at once (load ${os.loadavg()[0]?.toFixed(1)}): the window's mean (median of its ${slices} slices)`,
      );
      for (const [mode] of modes) {
        const cells = builds.map(([build]) => {
          const i = runsOf.findIndex((r) => r.build === build && r.mode === mode);
          return `${build} ${(((totals[i] as number) / elapsed) * 100).toFixed(3)} % (${median(percents[i] as number[]).toFixed(3)} %)`;
        });
        console.log(`  ${mode.padEnd(38)} ${cells.join('   ')}`);
      }
    } finally {
      for (const { run } of runsOf) run.kill('SIGTERM');
      for (const { run } of runsOf) {
        const ended = await run;
        if (ended.exitCode !== 0 && ended.exitCode !== 143) console.error(`run exited ${ended.exitCode}`);
      }
    }
  }
} finally {
  for (const child of children) child.kill('SIGTERM');
  await Promise.allSettled(children);
  await fs.rm(root, { recursive: true, force: true });
}
