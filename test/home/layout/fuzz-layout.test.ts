/**
 * Property test of the layout: whatever sits at a path chainvisor reads or writes — a regular file,
 * an empty file, a folder, a FIFO, a dangling or looping link, an unreadable entry — the real CLI
 * (`run`, `config`, `status`, `init`) ends with a documented exit code and, when it fails, a
 * CHAINVISOR_* code; never "unexpected error" with a stack, and never a hang.
 *
 * Every path × file type runs at least once (with a command drawn from a seeded generator), plus a
 * seeded random sample of further (path, type, command) triples. Set CHAINVISOR_FUZZ_SEED to replay
 * another sample (the seed is printed with each failure), CHAINVISOR_FUZZ_ALL=1 to run every triple.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { execa } from 'execa';

import { chainvisorCommand } from '../../support/home.js';

const seed = Number(process.env.CHAINVISOR_FUZZ_SEED ?? 20261123);
const extraCases = 20;
const concurrency = 4;
const isRoot = process.getuid?.() === 0;

/** Paths relative to the test root; `home` is DAEMON_HOME itself. */
const layoutPaths = [
  'home',
  'home/cosmovisor',
  'home/cosmovisor/genesis',
  'home/cosmovisor/genesis/bin',
  'home/cosmovisor/genesis/bin/simd',
  'home/cosmovisor/current',
  'home/cosmovisor/upgrades',
  'home/cosmovisor/upgrades/v2',
  'home/cosmovisor/upgrades/v2/bin',
  'home/cosmovisor/upgrades/v2/bin/simd',
  'home/cosmovisor/upgrades/v2/upgrade-info.json',
  'home/cosmovisor/config.toml',
  'home/cosmovisor/.chainvisor',
  'home/cosmovisor/.chainvisor/status.json',
  'home/data',
  'home/data/upgrade-info.json',
  'home/data/upgrade-info.json.batch',
  'backups',
] as const;

const fileTypes = ['file', 'empty', 'folder', 'fifo', 'dangling', 'loop', ...(isRoot ? [] : ['unreadable'])] as const;
type FileType = (typeof fileTypes)[number];
const commandNames = ['run', 'config', 'status', 'init'] as const;
type CommandName = (typeof commandNames)[number];

interface Case {
  target: string;
  type: FileType;
  command: CommandName;
}

/** mulberry32: small, seeded, good enough to pick cases. */
function random(seedValue: number): () => number {
  let a = seedValue >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(items: readonly T[], next: () => number): T {
  return items[Math.floor(next() * items.length)] as T;
}

function buildCases(): Case[] {
  const next = random(seed);
  const cases: Case[] = [];
  if (process.env.CHAINVISOR_FUZZ_ALL === '1') {
    // Every path × type × command (about 360 runs): for a thorough look by hand, too slow for the suite.
    for (const target of layoutPaths) for (const type of fileTypes) for (const command of commandNames) cases.push({ target, type, command });
    return cases;
  }
  for (const target of layoutPaths) for (const type of fileTypes) cases.push({ target, type, command: pick(commandNames, next) });
  for (let i = 0; i < extraCases; i++) cases.push({ target: pick(layoutPaths, next), type: pick(fileTypes, next), command: pick(commandNames, next) });
  return cases;
}

/** The node: exits 0 at once (and its `pre-upgrade` succeeds). */
const nodeScript = '#!/bin/sh\nexit 0\n';
const planText = JSON.stringify({ name: 'v2', time: '0001-01-01T00:00:00Z', height: 10 });

/**
 * A working home with an upgrade due: genesis and v2 installed, current -> genesis, the node's plan for
 * v2 in data/, backups enabled into `backups/`, cosmovisor's config.toml beside the binaries.
 */
async function buildHome(root: string): Promise<void> {
  const home = path.join(root, 'home');
  for (const dir of ['cosmovisor/genesis/bin', 'cosmovisor/upgrades/v2/bin', 'cosmovisor/.chainvisor', 'data'])
    await fs.mkdir(path.join(home, dir), { recursive: true });
  await fs.mkdir(path.join(root, 'backups'));
  await fs.mkdir(path.join(root, 'bins'));
  await fs.writeFile(path.join(home, 'cosmovisor/genesis/bin/simd'), nodeScript, { mode: 0o755 });
  await fs.writeFile(path.join(home, 'cosmovisor/upgrades/v2/bin/simd'), nodeScript, { mode: 0o755 });
  await fs.writeFile(path.join(root, 'bins/simd'), nodeScript, { mode: 0o755 });
  await fs.symlink('genesis', path.join(home, 'cosmovisor/current'));
  await fs.writeFile(path.join(home, 'data/upgrade-info.json'), planText);
  await fs.writeFile(path.join(home, 'data/blocks.db'), 'state');
  await fs.writeFile(path.join(home, 'cosmovisor/config.toml'), "daemon_poll_interval = '300ms'\n");
}

/** Replaces whatever is at `file` with an entry of `type`. */
async function plant(file: string, type: FileType): Promise<void> {
  if (type === 'unreadable') {
    await fs.chmod(file, 0o000);
    return;
  }
  await fs.rm(file, { recursive: true, force: true });
  switch (type) {
    case 'file':
      await fs.writeFile(file, 'not what chainvisor expects\n');
      return;
    case 'empty':
      await fs.writeFile(file, '');
      return;
    case 'folder':
      await fs.mkdir(file);
      return;
    case 'fifo':
      execFileSync('mkfifo', [file]);
      return;
    case 'dangling':
      await fs.symlink(path.join(path.dirname(file), 'nowhere-at-all'), file);
      return;
    case 'loop':
      await fs.symlink(path.basename(file), file);
      return;
  }
}

interface Outcome {
  c: Case;
  exitCode: number | undefined;
  stderr: string;
  timedOut: boolean;
}

async function runCase(base: string, c: Case, index: number): Promise<Outcome> {
  const root = path.join(base, `case-${index}`);
  await fs.mkdir(root);
  await buildHome(root);
  await plant(path.join(root, c.target), c.type);
  const home = path.join(root, 'home');
  const toml = path.join(home, 'cosmovisor/config.toml');
  const args =
    c.command === 'run'
      ? ['--cosmovisor-config', toml, 'run', 'start']
      : c.command === 'init'
        ? ['init', path.join(root, 'bins/simd')]
        : ['--cosmovisor-config', toml, c.command];
  const env: Record<string, string | undefined> = { PATH: process.env.PATH, HOME: process.env.HOME ?? os.homedir() };
  Object.assign(env, {
    DAEMON_HOME: home,
    DAEMON_NAME: 'simd',
    DAEMON_DATA_BACKUP_DIR: path.join(root, 'backups'),
    UNSAFE_SKIP_BACKUP: 'false',
    DAEMON_POLL_INTERVAL: '300ms',
    CHAINVISOR_PLAN_POLL_INTERVAL: '0s',
    CHAINVISOR_LOG_FORMAT: 'json',
  });
  const r = await execa(...chainvisorCommand(args), {
    env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 20_000,
    cwd: root,
  });
  // Leave the tree removable whatever was planted (an unreadable folder).
  await fs.chmod(path.join(root, c.target), 0o700).catch(() => undefined);
  return { c, exitCode: r.exitCode, stderr: r.stderr, timedOut: r.timedOut };
}

/** 0 (the node's own status: the fake node exits 0), 64 usage, 78 layout, 79 upgrade, 80 pre-upgrade, 81 backup, 82 home locked. */
const documented = new Set([0, 64, 78, 79, 80, 81, 82]);

/** What is wrong with one outcome, or undefined when it is a documented, coded result. */
function problemOf(o: Outcome): string | undefined {
  if (o.timedOut) return 'timed out (a hang)';
  if (o.exitCode === undefined || !documented.has(o.exitCode)) return `exit code ${o.exitCode} is not a documented one`;
  if (/unexpected error/i.test(o.stderr)) return 'stderr says "unexpected error"';
  if (/^\s+at .+:\d+:\d+\)?$/m.test(o.stderr)) return 'stderr shows a stack';
  if (o.exitCode !== 0 && !/CHAINVISOR_[A-Z_]+/.test(o.stderr)) return `exit ${o.exitCode} without a CHAINVISOR_* code`;
  return undefined;
}

/** The lines that say what went wrong, for the failure report. */
function excerpt(stderr: string): string {
  const lines = stderr.split('\n');
  const telling = lines.filter((l) => /error|Error|ELOOP|EACCES|ENOENT/.test(l)).slice(0, 4);
  return (telling.length > 0 ? telling : lines.slice(-4)).map((l) => `    ${l.slice(0, 400)}`).join('\n');
}

async function inBatches<T, R>(items: readonly T[], limit: number, run: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let nextIndex = 0;
  const worker = async (): Promise<void> => {
    for (let i = nextIndex++; i < items.length; i = nextIndex++) results[i] = await run(items[i] as T, i);
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

describe('layout fuzz: every file type at every layout path', () => {
  let base: string;
  before(async () => {
    base = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-fuzz-'));
  });
  after(async () => {
    await fs.rm(base, { recursive: true, force: true });
  });

  test(`documented exit codes and coded errors only (seed ${seed})`, { timeout: 240_000 }, async (t) => {
    const cases = buildCases();
    const outcomes = await inBatches(cases, concurrency, (c, i) => runCase(base, c, i));
    const failures = outcomes.flatMap((o) => {
      const problem = problemOf(o);
      return problem === undefined ? [] : [`${o.c.command} with ${o.c.type} at ${o.c.target}: ${problem}\n${excerpt(o.stderr)}`];
    });
    t.diagnostic(
      `${cases.length} cases over ${layoutPaths.length} paths × ${fileTypes.length} types × ${commandNames.length} commands (seed ${seed}); ${failures.length} failed`,
    );
    assert.equal(failures.length, 0, `${failures.length} of ${cases.length} cases failed (seed ${seed}):\n\n${failures.join('\n\n')}`);
  });
});
