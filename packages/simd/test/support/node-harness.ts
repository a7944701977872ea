/**
 * Real processes: builds the versions into a temp dir, starts nodes on port 0, runs the CLI, waits
 * for conditions with generous deadlines (the machine may be loaded), and cleans everything up.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { execa } from 'execa';

import { buildVersions, type BuiltVersions, type NodeAddresses, readAddresses, type VersionVariant } from '../../src/index.js';

export const deadline = 30_000;

export async function waitFor<T>(check: () => Promise<T | undefined | false> | T | undefined | false, what: string, timeoutMs = deadline): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

export interface SimFixture {
  dir: string;
  built: BuiltVersions;
  bin(version: string): string;
  /** A fresh node home inside the fixture, initialised with `simd init` and these flags. */
  initHome(flags?: string[]): Promise<string>;
}

export async function simFixture(
  t: TestContext,
  options: { baseUrl?: string; versions?: readonly string[]; variants?: Record<string, VersionVariant> } = {},
): Promise<SimFixture> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sim-node-'));
  // Hooks run in the order they are added: the nodes started in this folder are stopped here first, or
  // their writes (a signing state before every vote) race the removal.
  t.after(async () => {
    await stopNodesIn(dir);
    // A process that was stopped may still be ending its last write there: retried, as rm -rf is on ENOTEMPTY.
    await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });
  const built = await buildVersions({ out: path.join(dir, 'versions'), baseUrl: options.baseUrl, versions: options.versions, variants: options.variants });
  let homes = 0;
  const fixture: SimFixture = {
    dir,
    built,
    bin(version) {
      const v = built.versions[version];
      if (v === undefined) throw new Error(`no version ${version}`);
      return v.bin;
    },
    async initHome(flags = ['--voting-period', '500ms', '--deposit-period', '500ms', '--auto-vote']) {
      const home = path.join(dir, `home${++homes}`);
      const r = await cli(fixture.bin('genesis'), ['init', 'test', '--home', home, ...flags]);
      if (r.code !== 0) throw new Error(`init failed: ${r.stderr}`);
      return home;
    },
  };
  return fixture;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function cli(bin: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const r = await execa(bin, args, { reject: false, env, timeout: deadline });
  return { code: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Parses `-o json` output of a successful command. */
export async function cliJson<T = Record<string, unknown>>(bin: string, args: readonly string[]): Promise<T> {
  const r = await cli(bin, [...args, '--output', 'json']);
  if (r.code !== 0) throw new Error(`${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface SimNode {
  proc: ChildProcess;
  home: string;
  bin: string;
  /** Everything the node wrote on stderr so far. */
  log(): string;
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  exit: Promise<Exit>;
  addresses: NodeAddresses;
  http(base: 'rpc' | 'api', urlPath: string): Promise<{ status: number; body: any }>;
  height(): Promise<number>;
  waitForHeight(height: number, timeoutMs?: number): Promise<void>;
  /** SIGTERM, then the exit. */
  stop(): Promise<Exit>;
  kill9(): Promise<Exit>;
}

/** Every server on, on ports the system picks (`init` writes `[api] enable = false`, as the SDK does: REST is turned on here). */
export const fastFlags = [
  '--block-time',
  '50ms',
  '--rpc.laddr',
  'tcp://127.0.0.1:0',
  '--grpc.address',
  '127.0.0.1:0',
  '--api.enable',
  '--api.address',
  'tcp://127.0.0.1:0',
];

/** Nodes still running, by their home: a fixture stops those in its folder before removing it. */
const liveNodes = new Map<ChildProcess, { home: string; exit: Promise<unknown> }>();

/**
 * A node a test spawned itself (not through spawnNode), stopped with the fixture whose folder holds its
 * home: otherwise its writes race the folder's removal, and a failed removal leaves it running.
 */
export function stopWithFixture(proc: ChildProcess, home: string, exit: Promise<unknown>): void {
  liveNodes.set(proc, { home, exit });
  void exit.then(() => liveNodes.delete(proc));
}

async function stopNodesIn(dir: string): Promise<void> {
  const inside = [...liveNodes].filter(([, node]) => !path.relative(dir, node.home).startsWith('..'));
  for (const [proc] of inside) proc.kill('SIGKILL');
  await Promise.all(inside.map(([, node]) => node.exit));
}

/** Spawns `<bin> start --home <home> <fast flags> <args>` (or another command that starts the node); killed at the end of the test. */
export function spawnNode(t: TestContext, bin: string, home: string, args: readonly string[], env: NodeJS.ProcessEnv, command: readonly string[] = ['start']) {
  const proc = spawn(bin, [...command, '--home', home, ...fastFlags, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exit = new Promise<Exit>((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  let exited = false;
  liveNodes.set(proc, { home, exit });
  void exit.then(() => {
    exited = true;
    liveNodes.delete(proc);
  });
  t.after(async () => {
    if (!exited) {
      proc.kill('SIGKILL');
      await exit;
    }
  });
  return { proc, exit, log: () => stderr, hasExited: () => exited };
}

export async function startNode(t: TestContext, bin: string, home: string, args: readonly string[] = [], env: NodeJS.ProcessEnv = {}): Promise<SimNode> {
  const { proc, exit, log, hasExited } = spawnNode(t, bin, home, args, env);
  const addresses = await waitFor(async () => {
    if (hasExited()) throw new Error(`the node exited before listening: ${JSON.stringify(await exit)}\n${log()}`);
    const found = await readAddresses(home).catch(() => undefined);
    return found?.pid === proc.pid ? found : undefined;
  }, `${bin} to listen`);
  const url = (base: 'rpc' | 'api') => addresses[base].replace(/^tcp:/, 'http:');
  const node: SimNode = {
    proc,
    home,
    bin,
    log,
    exit,
    addresses,
    async waitForLog(pattern, timeoutMs) {
      return waitFor(() => pattern.exec(log()) ?? undefined, `log line ${pattern}`, timeoutMs);
    },
    async http(base, urlPath) {
      const response = await fetch(`${url(base)}${urlPath}`);
      return { status: response.status, body: await response.json() };
    },
    async height() {
      const { body } = await node.http('rpc', '/status');
      return Number(body.result.sync_info.latest_block_height);
    },
    async waitForHeight(height, timeoutMs) {
      await waitFor(async () => (await node.height()) >= height, `height ${height}`, timeoutMs);
    },
    async stop() {
      proc.kill('SIGTERM');
      return exit;
    },
    async kill9() {
      proc.kill('SIGKILL');
      return exit;
    },
  };
  return node;
}

/** Starts a node that is expected to stop by itself (a halt at its first block); resolves with its exit and log. */
export async function runNodeToExit(t: TestContext, bin: string, home: string, args: readonly string[] = []): Promise<Exit & { log: string }> {
  const { exit, log } = spawnNode(t, bin, home, args, {});
  const result = await Promise.race([exit, sleep(deadline, undefined, { ref: false }).then(() => undefined)]);
  if (result === undefined) throw new Error(`${bin} did not exit:\n${log()}`);
  return { ...result, log: log() };
}

/** Submits a software-upgrade proposal through the CLI; returns the proposal id and the CLI's stderr. */
export async function proposeUpgrade(
  bin: string,
  home: string,
  options: { name: string; height: number; info?: string; extra?: string[] },
): Promise<{ id: string; stderr: string }> {
  const info = options.info === undefined ? [] : ['--upgrade-info', options.info];
  const r = await cli(bin, [
    'tx',
    'upgrade',
    'software-upgrade',
    options.name,
    '--title',
    `upgrade ${options.name}`,
    '--summary',
    'test upgrade',
    '--deposit',
    '10000000stake',
    '--upgrade-height',
    String(options.height),
    ...info,
    '--from',
    'validator',
    '--home',
    home,
    '--yes',
    ...(options.extra ?? []),
  ]);
  if (r.code !== 0) throw new Error(`proposal failed (${r.code}): ${r.stdout}\n${r.stderr}`);
  return { id: proposalIdOf(r.stdout), stderr: r.stderr };
}

export function proposalIdOf(txOutput: string): string {
  const response = JSON.parse(txOutput) as { events: Array<{ type: string; attributes: Array<{ key: string; value: string }> }> };
  const id = response.events.find((e) => e.type === 'submit_proposal')?.attributes.find((a) => a.key === 'proposal_id')?.value;
  if (id === undefined) throw new Error(`no proposal id in ${txOutput}`);
  return id;
}

export async function waitForProposal(bin: string, home: string, id: string, status: RegExp, timeoutMs?: number): Promise<Record<string, any>> {
  return waitFor(
    async () => {
      const proposal = await cliJson<Record<string, any>>(bin, ['query', 'gov', 'proposal', id, '--home', home]);
      return status.test(String(proposal.status)) ? proposal : undefined;
    },
    `proposal ${id} ${status}`,
    timeoutMs,
  );
}

/** A governance proposal to cancel the scheduled upgrade (`MsgCancelUpgrade`), from the validator's account. */
export async function proposeCancel(
  bin: string,
  home: string,
  options: { summary?: string; deposit?: string } = {},
): Promise<{ id: string; stdout: string; stderr: string }> {
  const r = await cli(bin, [
    'tx',
    'upgrade',
    'cancel-software-upgrade',
    '--title',
    'cancel',
    '--summary',
    options.summary ?? 'cancel it',
    '--deposit',
    options.deposit ?? '10000000stake',
    '--from',
    'validator',
    '--home',
    home,
    '--yes',
  ]);
  if (r.code !== 0) throw new Error(`cancel proposal failed (${r.code}): ${r.stdout}\n${r.stderr}`);
  return { id: proposalIdOf(r.stdout), stdout: r.stdout, stderr: r.stderr };
}

export async function readUpgradeInfoFile(home: string): Promise<string> {
  return readFile(path.join(home, 'data', 'upgrade-info.json'), 'utf8');
}
