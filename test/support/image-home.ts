/**
 * The container image test's side of the volume: `docker` run from the test, and a home laid out on the
 * host for the image's user, with busybox and fake nodes that keep their data as an SDK node does
 * (under `--home`, else `$HOME/.simd`). The image has no shell, so the fake nodes run on busybox there.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Where the home is inside the container (the image's DAEMON_HOME). */
export const HOME = '/home/chainvisor';
export const TOOLS = `${HOME}/.tools`;
export const BUSYBOX = `${TOOLS}/busybox`;
export const IMAGE_UID = 10001;

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function docker(args: string[], timeoutMs = 60_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile('docker', args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

export async function dockerOk(args: string[], timeoutMs?: number): Promise<string> {
  const run = await docker(args, timeoutMs);
  assert.equal(run.code, 0, `docker ${args.join(' ')} failed: ${run.stderr}`);
  return run.stdout;
}

/**
 * The fake node: keeps its data as an SDK node does, under `--home` or else `$HOME/.simd` (its signing
 * state at start; upgrade-info.json at the halt, which the test asks for with `.tools/halt`); logs to
 * the journal, exits 42 on SIGTERM (or ignores it), may leave orphans behind.
 */
function fakeNode(label: string): string {
  return [
    `#!${BUSYBOX} sh`,
    `PATH=${TOOLS}/bin`,
    `H=${HOME}; J=$H/journal; L=${label}`,
    'case "$1" in',
    '  pre-upgrade) exit 1 ;;',
    `  version) echo ${label}; exit 0 ;;`,
    'esac',
    'N="${HOME:-}/.simd"; prev=',
    'for a in "$@"; do',
    '  case "$a" in --home=*) N="${a#--home=}" ;; esac',
    '  if [ "$prev" = --home ]; then N="$a"; fi',
    '  prev="$a"',
    'done',
    'mkdir -p "$N/data"',
    `[ -f "$N/data/priv_validator_state.json" ] || echo '{"height":"0","round":0,"step":0}' > "$N/data/priv_validator_state.json"`,
    'if [ -f "$H/ignore-term" ]; then',
    `  trap 'echo "$L got TERM (ignored)" >> "$J"' TERM`,
    'else',
    `  trap 'echo "$L got TERM" >> "$J"; exit 42' TERM`,
    'fi',
    'echo "$L start pid=$$ uid=$(id -u) home=$N args=$*" >> "$J"',
    // Children that outlive their parent: reparented to PID 1, which must reap them when they exit.
    'if [ -f "$H/orphans" ]; then',
    '  for i in 1 2 3 4 5; do ( sleep 0.3 & ); done',
    '  echo "$L left orphans" >> "$J"',
    'fi',
    'while :; do',
    '  if [ -f "$H/.tools/halt" ]; then echo "$L halted home=$N" >> "$J"; mv "$H/.tools/halt" "$N/data/upgrade-info.json"; fi',
    '  sleep 0.1',
    'done',
    '',
  ].join('\n');
}

const applets = ['sh', 'sleep', 'id', 'cat', 'echo', 'mkdir', 'mv', 'rm', 'ls'];

/** A home laid out on the host: busybox, genesis and v2 fake nodes; owned by the image's user. */
export async function makeHome(busybox: string): Promise<string> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-image-'));
  await fs.mkdir(path.join(home, '.tools/bin'), { recursive: true });
  await fs.copyFile(busybox, path.join(home, '.tools/busybox'));
  await fs.chmod(path.join(home, '.tools/busybox'), 0o755);
  for (const applet of applets) await fs.symlink('../busybox', path.join(home, '.tools/bin', applet));
  await fs.writeFile(path.join(home, '.tools/genesis-simd'), fakeNode('genesis'), { mode: 0o755 });
  await fs.mkdir(path.join(home, 'cosmovisor/upgrades/v2/bin'), { recursive: true });
  await fs.writeFile(path.join(home, 'cosmovisor/upgrades/v2/bin/simd'), fakeNode('v2'), { mode: 0o755 });
  await fs.mkdir(path.join(home, 'data'));
  await fs.chmod(home, 0o755);
  await chownTree(home);
  return home;
}

export async function chownTree(file: string): Promise<void> {
  if (process.getuid?.() !== 0) return;
  await fs.lchown(file, IMAGE_UID, IMAGE_UID);
  const stat = await fs.lstat(file);
  if (stat.isDirectory()) for (const name of await fs.readdir(file)) await chownTree(path.join(file, name));
}

/** `--user` for a non-root test run: the home is then this user's, not the image's. */
export function userArgs(): string[] {
  return process.getuid?.() === 0 ? [] : ['--user', `${process.getuid?.()}:${process.getgid?.()}`];
}

/** Has the node halt for `name`: it writes data/upgrade-info.json in its own home, as at the height. */
export async function haltNode(home: string, name: string, height: number): Promise<void> {
  const tmp = path.join(home, '.tools/.halt.tmp');
  await fs.writeFile(tmp, JSON.stringify({ name, time: '0001-01-01T00:00:00Z', height }));
  await chownTree(tmp);
  await fs.rename(tmp, path.join(home, '.tools/halt'));
}
