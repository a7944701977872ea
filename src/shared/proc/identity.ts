/**
 * Who a process id is: alive or not, when it started, what its environment says. A pid alone is not an
 * identity — the kernel reuses them — so a record that names a process keeps its start time too, and a
 * process counts as the recorded one only when both match.
 *
 * Linux reads /proc (start time: field 22 of /proc/<pid>/stat, in clock ticks since boot); elsewhere
 * `ps -o lstart=` gives the start time to the second, and the environment is not readable.
 */
import fs from 'node:fs/promises';

import { isErrno } from '../errors/index.js';
import { notReadError, readBounded, readBoundedSync } from '../fsread/index.js';
import { runProgram } from './run.js';

const linux = process.platform === 'linux';

/**
 * The kernel's clock ticks per second as exported to user space (USER_HZ). It is 100 on every Linux
 * architecture Node runs on; Node cannot call sysconf(_SC_CLK_TCK).
 */
const userHz = 100;

/** Bounds of the /proc files read (by the one bounded reader, as every file): a pid's stat line, its environment, the system's stat. */
const maxStatBytes = 64 * 1024;
const maxEnvironBytes = 8 * 1024 * 1024;
const maxProcStatBytes = 16 * 1024 * 1024;

/** True while `pid` is a running process (a zombie — exited, not yet reaped — counts as gone). */
export async function isProcessAlive(pid: number): Promise<boolean> {
  if (!signalable(pid)) return false;
  if (!linux) return true;
  return running(await readStat(pid));
}

/**
 * isProcessAlive without yielding to the event loop, for a look that must be the last thing before
 * acting on the process.
 */
export function isProcessAliveNow(pid: number): boolean {
  if (!signalable(pid)) return false;
  if (!linux) return true;
  const read = readBoundedSync(`/proc/${pid}/stat`, maxStatBytes);
  if (read.status === 'ok') return running(parseStat(read.text));
  if (read.status === 'missing' || read.errno === 'ESRCH') return false;
  throw notReadError(`/proc/${pid}/stat`, read);
}

/** Whether a signal could reach `pid`: it exists (EPERM: it belongs to another user). */
function signalable(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isErrno(error, 'EPERM');
  }
}

function running(stat: Stat | undefined): boolean {
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X';
}

/**
 * An opaque token that differs between two processes that had the same pid: the start time in clock
 * ticks since boot on Linux, the `ps` start date elsewhere. Undefined when the process is gone or
 * nothing can tell.
 */
export async function processStartToken(pid: number): Promise<string | undefined> {
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  if (linux) return (await readStat(pid))?.startTicks;
  return psStart(pid);
}

/** Wall-clock start of `pid` in ms since the epoch (Linux: to within a second), or undefined. */
export async function processStartedAtMs(pid: number): Promise<number | undefined> {
  const token = await processStartToken(pid);
  if (token === undefined) return undefined;
  if (!linux) {
    const ms = Date.parse(token);
    return Number.isNaN(ms) ? undefined : ms;
  }
  const boot = await bootTimeMs();
  return boot === undefined ? undefined : boot + (Number(token) * 1000) / userHz;
}

/**
 * The environment of `pid` (Linux, same user or root), or undefined when it cannot be read — then the
 * caller has only the start time to go on.
 */
export async function readProcessEnv(pid: number): Promise<Map<string, string> | undefined> {
  if (!linux) return undefined;
  const read = await readBounded(`/proc/${pid}/environ`, maxEnvironBytes);
  if (read.status === 'missing' || (read.status === 'refused' && ['EACCES', 'EPERM', 'ESRCH'].includes(read.errno ?? ''))) return undefined;
  if (read.status === 'refused') throw notReadError(`/proc/${pid}/environ`, read);
  const raw = read.text;
  const env = new Map<string, string>();
  for (const entry of raw.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return env;
}

/** Pids whose environment holds `name=value` (Linux; an empty list elsewhere or when /proc is hidden). */
export async function findProcessesByEnv(name: string, value: string): Promise<number[]> {
  if (!linux) return [];
  let entries: string[];
  try {
    entries = await fs.readdir('/proc');
  } catch (error) {
    if (isErrno(error, 'ENOENT') || isErrno(error, 'EACCES')) return [];
    throw error;
  }
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const env = await readProcessEnv(pid).catch(() => undefined);
    if (env?.get(name) === value && (await isProcessAlive(pid))) found.push(pid);
  }
  return found;
}

interface Stat {
  state: string;
  startTicks: string;
}

async function readStat(pid: number): Promise<Stat | undefined> {
  const read = await readBounded(`/proc/${pid}/stat`, maxStatBytes);
  if (read.status === 'ok') return parseStat(read.text);
  if (read.status === 'missing' || read.errno === 'ESRCH') return undefined;
  throw notReadError(`/proc/${pid}/stat`, read);
}

function parseStat(text: string): Stat | undefined {
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); field 22 (starttime) is fields[19].
  const state = fields[0];
  const startTicks = fields[19];
  if (state === undefined || startTicks === undefined || !/^\d+$/.test(startTicks)) return undefined;
  return { state, startTicks };
}

let bootMs: number | undefined;

async function bootTimeMs(): Promise<number | undefined> {
  if (bootMs !== undefined) return bootMs;
  const read = await readBounded('/proc/stat', maxProcStatBytes);
  if (read.status === 'refused' && read.errno !== 'EACCES') throw notReadError('/proc/stat', read);
  const match = read.status === 'ok' ? /^btime (\d+)$/m.exec(read.text) : null;
  if (match) bootMs = Number(match[1]) * 1000;
  return bootMs;
}

async function psStart(pid: number): Promise<string | undefined> {
  const result = await runProgram('ps', ['-o', 'lstart=', '-p', String(pid)], { timeoutMs: 5000, env: { ...process.env, LC_ALL: 'C' } });
  const text = result.stdout.trim();
  return result.exitCode !== 0 || text === '' ? undefined : text;
}
