/**
 * Staging tests' harness: the simulated chain under `chainvisor run` with a fixed gRPC port (so
 * DAEMON_GRPC_ADDRESS can point at it) — or, with `rpcOnly`, with gRPC off and the RPC on a port named
 * only in the home's config/config.toml — and a local file server that counts the bytes it sends,
 * can be throttled, or can answer 404.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';

import { buildVersions, type BuiltVersions, type NodeAddresses, readAddresses } from '@chainvisor/simd';
import { cli, waitFor } from '@chainvisor/simd/testing';

import { chainvisorCommand } from './chainvisor-command.js';
import { stopRunAndNode } from './leftover-node.js';
import { unusedPort } from './ports.js';
import { setUp } from './set-up.js';

export { type FileServer, serveFiles } from './file-server.js';

export interface Chain {
  dir: string;
  home: string;
  built: BuiltVersions;
  grpc: string;
  env: Record<string, string>;
  nodeFlags: string[];
  chainvisor(args: string[], extra?: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Run before the chain's folder is removed. */
  stops: Array<() => Promise<void>>;
}

export interface ChainOptions {
  blockTime?: string;
  /**
   * The node with `--grpc.enable=false`, its RPC port written into config/config.toml only (no
   * `--rpc.laddr`), and no DAEMON_GRPC_ADDRESS: chainvisor must find the RPC as the node does.
   */
  rpcOnly?: boolean;
}

export async function makeChain(t: TestContext, options: ChainOptions = {}): Promise<Chain> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'staging-'));
  const stops: Array<() => Promise<void>> = [];
  // Every chainvisor started on this chain is stopped before its home is removed (a running one
  // rewrites its status file, and the removal would race it).
  t.after(async () => {
    await Promise.all(stops.map((stop) => stop()));
    await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });
  const built = await buildVersions({ out: path.join(dir, 'versions'), versions: ['genesis', 'v2'] });
  const home = path.join(dir, 'home');
  const genesis = built.versions.genesis?.bin as string;
  const init = await cli(genesis, ['init', 'staging', '--home', home, '--voting-period', '300ms', '--deposit-period', '300ms', '--auto-vote']);
  if (init.code !== 0) throw new Error(init.stderr);
  const grpc = options.rpcOnly ? '' : `127.0.0.1:${await unusedPort()}`;
  const env: Record<string, string> = {
    DAEMON_HOME: home,
    DAEMON_NAME: 'simd',
    UNSAFE_SKIP_BACKUP: 'true',
    DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true',
    ...(options.rpcOnly ? {} : { DAEMON_GRPC_ADDRESS: grpc }),
    CHAINVISOR_PLAN_POLL_INTERVAL: '300ms',
    CHAINVISOR_LOG_FORMAT: 'json',
  };
  const listen = options.rpcOnly ? ['--grpc.enable=false'] : ['--rpc.laddr', 'tcp://127.0.0.1:0', '--grpc.address', grpc];
  if (options.rpcOnly) {
    const file = path.join(home, 'config', 'config.toml');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace(/^laddr = .*$/m, `laddr = "tcp://127.0.0.1:${await unusedPort()}"`));
  }
  const nodeFlags = ['start', '--home', home, '--block-time', options.blockTime ?? '100ms', ...listen, '--api.address', 'tcp://127.0.0.1:0'];
  const chain: Chain = {
    dir,
    home,
    built,
    grpc,
    env,
    nodeFlags,
    stops,
    chainvisor: (args, extra = {}) => cli(...chainvisorCommand(args), { ...process.env, ...env, ...extra }),
  };
  await setUp(['init', genesis], { ...process.env, ...env });
  return chain;
}

export interface Running {
  output(): string;
  /** JSON log lines of chainvisor with this event name. */
  events(name: string): Array<Record<string, unknown>>;
  exit: Promise<number | null>;
  /** Waits for that version's node to listen (30 s, or `timeoutMs`). */
  nodeOf(version: string, timeoutMs?: number): Promise<NodeAddresses>;
  height(a: NodeAddresses): Promise<number>;
  stop(): Promise<number | null>;
}

export function runChainvisor(t: TestContext, chain: Chain, extra: Record<string, string> = {}): Running {
  const run = spawn(...chainvisorCommand(['run', ...chain.nodeFlags]), { env: { ...process.env, ...chain.env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  run.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
  run.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
  const exit = new Promise<number | null>((resolve) => run.on('exit', (code) => resolve(code)));
  let exited = false;
  void exit.then(() => (exited = true));
  const stop = () => stopRunAndNode(run, exit, () => exited, chain.home);
  chain.stops.push(stop);
  t.after(stop);
  const running: Running = {
    output: () => output,
    events: (name) =>
      output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.event === name),
    exit,
    nodeOf: (version, timeoutMs) =>
      waitFor(
        async () => {
          if (exited) throw new Error(`chainvisor exited early:\n${output}`);
          const a = await readAddresses(chain.home).catch(() => undefined);
          return a?.version === version ? a : undefined;
        },
        `the ${version} node to listen`,
        timeoutMs,
      ),
    async height(a) {
      const r = await fetch(`${a.rpc.replace('tcp:', 'http:')}/status`);
      return Number(((await r.json()) as { result: { sync_info: { latest_block_height: string } } }).result.sync_info.latest_block_height);
    },
    async stop() {
      run.kill('SIGTERM');
      return exit;
    },
  };
  return running;
}
