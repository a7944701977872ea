/**
 * chainvisor running the simulated node, for the end-to-end tests of manual upgrades: a built set of
 * versions, a home initialised with genesis, `chainvisor run start …` with its output captured, and a
 * reading of that output that says which binary committed which block (each node logs `starting node
 * … version=<v>` before its first block and `committed state … height=<h>` for every block).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';

import { buildVersions, type BuiltVersions, type NodeAddresses, readAddresses } from '@chainvisor/simd';
import { cli, type CliResult, waitFor } from '@chainvisor/simd/testing';

import { chainvisorCommand } from './chainvisor-command.js';
import { stopRunAndNode } from './leftover-node.js';
import { unusedPort } from './ports.js';
import { setUp } from './set-up.js';

export interface ChainvisorSim {
  dir: string;
  home: string;
  built: BuiltVersions;
  bin(version: string): string;
  env: Record<string, string>;
  /** Node flags: fast blocks, the gRPC port chainvisor is told about, RPC and REST on port 0. */
  nodeFlags: string[];
  cv(args: string[], env?: Record<string, string>): Promise<CliResult>;
  /** Starts `chainvisor run start --home … <nodeFlags> <extra>`. */
  run(extra?: string[], env?: Record<string, string>): Running;
}

export interface Running {
  proc: ChildProcess;
  output(): string;
  exit: Promise<number | null>;
  exited(): boolean;
  /** Waits for the node of `version` to listen and returns its addresses. */
  /** Waits for that version's node to listen (60 s, or `timeoutMs`). */
  nodeOf(version: string, timeoutMs?: number): Promise<NodeAddresses>;
  /** SIGTERM and the exit code. */
  stop(): Promise<number | null>;
}

export async function chainvisorSim(
  t: TestContext,
  versions: string[],
  env: Record<string, string> = {},
  initFlags: string[] = [],
  variants: NonNullable<Parameters<typeof buildVersions>[0]>['variants'] = {},
): Promise<ChainvisorSim> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'manual-e2e-'));
  // Hooks run in the order they are added: the runs are stopped here first, or their nodes' writes race the removal.
  const stops: Array<() => Promise<void>> = [];
  t.after(async () => {
    for (const stop of stops) await stop();
    await rm(dir, { recursive: true, force: true });
  });
  const built = await buildVersions({ out: path.join(dir, 'versions'), versions, variants });
  const home = path.join(dir, 'home');
  const grpc = `127.0.0.1:${await unusedPort()}`;
  const bin = (v: string) => built.versions[v]?.bin as string;
  const fullEnv = {
    DAEMON_HOME: home,
    DAEMON_NAME: 'simd',
    UNSAFE_SKIP_BACKUP: 'true',
    COSMOVISOR_COLOR_LOGS: 'false',
    DAEMON_GRPC_ADDRESS: grpc,
    ...env,
  };
  const init = await cli(bin('genesis'), ['init', 'manual', '--home', home, ...initFlags]);
  if (init.code !== 0) throw new Error(init.stderr);
  const cv = (args: string[], extra: Record<string, string> = {}) => cli(...chainvisorCommand(args), { ...fullEnv, ...extra });
  await setUp(['init', bin('genesis')], { ...process.env, ...fullEnv });
  const nodeFlags = ['--block-time', '50ms', '--rpc.laddr', 'tcp://127.0.0.1:0', '--grpc.address', grpc, '--api.address', 'tcp://127.0.0.1:0'];
  return {
    dir,
    home,
    built,
    bin,
    env: fullEnv,
    nodeFlags,
    cv,
    run(extra = [], runEnv = {}) {
      const proc = spawn(...chainvisorCommand(['run', 'start', '--home', home, ...nodeFlags, ...extra]), {
        env: { ...process.env, ...fullEnv, ...runEnv },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      proc.stdout?.setEncoding('utf8').on('data', (c: string) => (output += c));
      proc.stderr?.setEncoding('utf8').on('data', (c: string) => (output += c));
      let done = false;
      const exit = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
      void exit.then(() => (done = true));
      const stop = () => stopRunAndNode(proc, exit, () => done, home);
      stops.push(stop);
      t.after(stop);
      const running: Running = {
        proc,
        output: () => output,
        exit,
        exited: () => done,
        nodeOf: (version, timeoutMs = 60_000) =>
          waitFor(
            async () => {
              if (done) throw new Error(`chainvisor exited early:\n${output}`);
              const a = await readAddresses(home).catch(() => undefined);
              return a?.version === version ? a : undefined;
            },
            `the ${version} node to listen\n${output.slice(-4000)}`,
            timeoutMs,
          ),
        async stop() {
          proc.kill('SIGTERM');
          return exit;
        },
      };
      return running;
    },
  };
}

export async function heightOf(a: NodeAddresses): Promise<number> {
  const r = await fetch(`${a.rpc.replace('tcp:', 'http:')}/status`);
  return Number(((await r.json()) as { result: { sync_info: { latest_block_height: string } } }).result.sync_info.latest_block_height);
}

/** Which version committed each height, from the nodes' own log lines in chainvisor's output. */
export function committedBy(output: string): Map<number, string> {
  const by = new Map<number, string>();
  let version = '?';
  for (const line of output.split('\n')) {
    const start = / starting node .*version=(\S+)/.exec(line);
    if (start) version = start[1] as string;
    const commit = / committed state .*height=(\d+)/.exec(line);
    if (commit) by.set(Number(commit[1]), version);
  }
  return by;
}

/** The last height `version` committed and the first it did not (undefined when none). */
export function handover(output: string, from: string, to: string): { lastOld: number; firstNew: number } {
  const by = committedBy(output);
  let lastOld = -1;
  let firstNew = Number.POSITIVE_INFINITY;
  for (const [height, version] of by) {
    if (version === from) lastOld = Math.max(lastOld, height);
    if (version === to) firstNew = Math.min(firstNew, height);
  }
  return { lastOld, firstNew };
}
