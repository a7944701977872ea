/**
 * A node home in a temp folder, and the real `chainvisor` command run against it as a child process.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { execa } from 'execa';

import { chainvisorCommand } from './chainvisor-command.js';
import { type FakeNodeOptions, writeFakeNode } from './fake-node.js';
import { type CliResult, runChainvisor, setUp } from './set-up.js';

export { chainvisorBin, chainvisorBinCommand, chainvisorCommand } from './chainvisor-command.js';
export type { CliResult } from './set-up.js';

export interface TestHome {
  root: string;
  home: string;
  binDir: string;
  journal: string;
  env: Record<string, string>;
  /** A fake node script under binDir; the journal is filled in. */
  fakeNode(options: Omit<FakeNodeOptions, 'journal'>): Promise<string>;
  /** Runs `chainvisor <args>` to completion. */
  cli(args: string[], env?: Record<string, string>): Promise<CliResult>;
  /** Runs a set-up step (`init`, `add-upgrade`, …) that must succeed; `init` and `add-upgrade` in this process (./set-up.ts). */
  cliOk(args: string[], env?: Record<string, string>): Promise<CliResult>;
  /** Starts `chainvisor <args>` and returns the running process. */
  spawn(args: string[], env?: Record<string, string>): ReturnType<typeof spawnChainvisor>;
  journalLines(): Promise<string[]>;
  current(): Promise<string>;
  cleanup(): Promise<void>;
}

/**
 * `options.bin`: `cli` runs bin/chainvisor.js itself, as npm installs it, instead of the test run's
 * bundle of it (see chainvisor-command.ts).
 */
export async function makeHome(env: Record<string, string> = {}, options: { bin?: boolean } = {}): Promise<TestHome> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-test-'));
  const home = path.join(root, 'home');
  const binDir = path.join(root, 'bins');
  const journal = path.join(root, 'journal.log');
  await fs.mkdir(home, { recursive: true });
  await fs.writeFile(journal, '');
  const baseEnv: Record<string, string> = {
    DAEMON_HOME: home,
    DAEMON_NAME: 'simd',
    UNSAFE_SKIP_BACKUP: 'true',
    DAEMON_POLL_INTERVAL: '300ms',
    ...env,
  };
  const cleanEnv = () => {
    const inherited: Record<string, string | undefined> = { ...process.env };
    for (const key of Object.keys(inherited)) {
      if (/^(DAEMON_|COSMOVISOR_|CHAINVISOR_|UNSAFE_SKIP_BACKUP)/.test(key)) delete inherited[key];
      // The test machine's own network settings never reach the command: tests name their proxies and CAs.
      if (/^(https?_proxy|no_proxy|grpc_proxy|no_grpc_proxy|ssl_cert_file|ssl_cert_dir|node_extra_ca_certs)$/i.test(key)) delete inherited[key];
    }
    return inherited;
  };
  // What `spawn` started: a test that fails half-way leaves its `run` running, whose node keeps the
  // output pipes open and the test file from ever ending; `cleanup` stops what is left.
  const spawned: Array<ReturnType<typeof spawnChainvisor>> = [];
  const t: TestHome = {
    root,
    home,
    binDir,
    journal,
    env: baseEnv,
    fakeNode: (options) => writeFakeNode(binDir, { ...options, journal }),
    cli: (args, extra = {}) => runChainvisor(args, { ...cleanEnv(), ...t.env, ...extra }, options),
    cliOk: (args, extra = {}) => setUp(args, { ...cleanEnv(), ...t.env, ...extra }, options),
    spawn(args, extra = {}) {
      const child = spawnChainvisor(args, { ...cleanEnv(), ...t.env, ...extra });
      spawned.push(child);
      return child;
    },
    async journalLines() {
      return (await fs.readFile(journal, 'utf8')).split('\n').filter((l) => l !== '');
    },
    async current() {
      return fs.readlink(path.join(home, 'cosmovisor', 'current'));
    },
    async cleanup() {
      await Promise.all(spawned.map(stopLeftover));
      await fs.rm(root, { recursive: true, force: true });
    },
  };
  return t;
}

/**
 * A spawned chainvisor still running: SIGTERM (it stops its node), SIGKILL after 5 s. Waits for its exit
 * only: a node it left behind may hold its output open.
 */
async function stopLeftover(child: ReturnType<typeof spawnChainvisor>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = await Promise.race([exited.then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(resolve, 5000, true)))]);
  clearTimeout(timer);
  if (late) {
    child.kill('SIGKILL');
    await exited;
  }
}

function spawnChainvisor(args: string[], env: Record<string, string | undefined>) {
  return execa(...chainvisorCommand(args), { env, extendEnv: false, reject: false, all: true, stdin: 'ignore' });
}

/** Waits until `condition` holds, checking every 20 ms; fails after `timeoutMs` with `what`. */
export async function waitFor(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
