/**
 * CHAINVISOR_REHEARSE=true: `run` rehearses each upgrade scheduled on chain once its binary is in
 * `upgrades/<name>/` (staged, or installed by hand), and again when that binary changes (its sha256 has
 * no report yet). The rehearsal is `chainvisor rehearse <name>` in a child process at the lowest CPU
 * priority (nice 19) and idle I/O class (`ionice -c 3`, when installed), one at a time. It is given up
 * (SIGTERM: the child stops its scratch node and removes the scratch) when the upgrade is
 * CHAINVISOR_STAGE_WARN_BLOCKS blocks away or nearer, when free disk in CHAINVISOR_REHEARSAL_DIR runs low,
 * or when `run` stops. It never touches the live node; its result reaches the log, webhooks and metrics
 * through the record it writes (./follow.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import type { Config } from '../config/index.js';
import { binaryPath, type Layout, planDir } from '../home/layout/index.js';
import type { EventBus, UpgradeRef } from '../shared/events/index.js';
import { hashFile } from '../shared/fsread/index.js';
import type { Logger } from '../shared/log.js';
import { readRehearsals } from './record.js';

/** Free disk under which a running rehearsal is given up. */
const lowDiskBytes = 1024 * 1024 * 1024;

export interface AutoRehearsalOptions {
  config: Config;
  layout: Layout;
  logger: Logger;
  bus: EventBus;
  /** `chainvisor rehearse` as a program and its arguments (tests; default: this chainvisor). */
  command?: (args: string[]) => Promise<[string, string[]]>;
}

export function startAutoRehearsal(options: AutoRehearsalOptions): { stop(): Promise<void> } {
  const { config, layout, bus } = options;
  const logger = options.logger.child({ component: 'rehearsal' });
  let plan: UpgradeRef | undefined;
  let height: number | undefined;
  let child: { proc: ChildProcess; upgrade: string; exited: Promise<void>; givenUp: boolean } | undefined;
  let checking = false;
  let stopped = false;
  const hashes = new Map<string, { stamp: string; sha: string }>();
  /** Once per binary per run, even when it could not rehearse (79): no retry on every height. */
  const tried = new Set<string>();

  const binaryOf = (name: string) => binaryPath(layout, planDir(layout, name));
  const tooNear = () => plan !== undefined && height !== undefined && plan.height - height <= config.stageWarnBlocks;

  async function sha(file: string): Promise<string | undefined> {
    const stat = await fs.stat(file).catch(() => undefined);
    if (!stat?.isFile()) return undefined;
    const stamp = `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
    const known = hashes.get(file);
    if (known?.stamp === stamp) return known.sha;
    const read = await hashFile(file);
    if (read.status !== 'ok') return undefined; // not a binary to rehearse (a FIFO, gone): as when missing
    const digest = read.hex;
    hashes.set(file, { stamp, sha: digest });
    return digest;
  }

  async function check(): Promise<void> {
    if (checking || stopped) return;
    checking = true;
    try {
      if (child !== undefined) {
        if (tooNear() || (await diskLow()))
          giveUp(tooNear() ? `upgrade "${child.upgrade}" is ${config.stageWarnBlocks} blocks away or nearer` : 'free disk runs low');
        return;
      }
      if (plan === undefined || height === undefined || tooNear()) return;
      const digest = await sha(binaryOf(plan.name)).catch(() => undefined);
      if (digest === undefined) return;
      const done = await readRehearsals(layout).catch(() => []);
      if (done.some((r) => r.upgrade === plan?.name && r.binary_sha256 === digest)) return;
      if (tried.has(`${plan.name}:${digest}`)) return;
      tried.add(`${plan.name}:${digest}`);
      await begin(plan.name);
    } finally {
      checking = false;
    }
  }

  async function diskLow(): Promise<boolean> {
    const stats = await fs.statfs(config.rehearsalDir).catch(() => undefined);
    return stats !== undefined && Number(stats.bavail) * Number(stats.bsize) < lowDiskBytes;
  }

  function giveUp(why: string): void {
    if (child === undefined || child.givenUp) return;
    child.givenUp = true;
    logger.warn({ upgrade: child.upgrade }, `giving up the rehearsal of upgrade "${child.upgrade}": ${why}`);
    child.proc.kill('SIGTERM');
  }

  async function begin(name: string): Promise<void> {
    const [file, args] = await (options.command ?? selfCommand)(['rehearse', name]);
    const ionice = await firstExisting(['/usr/bin/ionice', '/bin/ionice']);
    const proc = ionice
      ? spawn(ionice, ['-c', '3', file, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
      : spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      if (proc.pid !== undefined) os.setPriority(proc.pid, 19);
    } catch {
      // not permitted here: it still runs, at normal priority
    }
    // Short of memory, the kernel kills the rehearsal (and its scratch node, which inherits this), never the live node first.
    if (proc.pid !== undefined) await fs.writeFile(`/proc/${proc.pid}/oom_score_adj`, '1000').catch(() => undefined);
    let tail = '';
    proc.stderr?.setEncoding('utf8').on('data', (chunk: string) => (tail = (tail + chunk).slice(-4000)));
    logger.info({ upgrade: name, pid: proc.pid }, `rehearsing upgrade "${name}" on a copy of this node's state, in the background`);
    const exited = new Promise<void>((resolve) => {
      proc.on('error', (error) => {
        logger.warn({ upgrade: name, err: error }, `could not start the rehearsal of "${name}": ${error.message}`);
      });
      proc.on('close', (code, signal) => {
        child = undefined;
        if (code === 0 || code === 83) logger.debug({ upgrade: name, code }, 'rehearsal finished');
        else {
          const said = tail
            .split('\n')
            .filter((l) => l.startsWith('chainvisor: '))
            .join(' ');
          logger.warn({ upgrade: name, code, signal }, `could not rehearse upgrade "${name}" (exit ${code ?? signal}): ${said || tail.slice(-500)}`);
        }
        resolve();
      });
    });
    child = { proc, upgrade: name, exited, givenUp: false };
  }

  const off = bus.on((event) => {
    if (event.event === 'upgrade-scheduled' && event.data?.manual !== true && event.upgrade) plan = event.upgrade;
    else if (event.event === 'plan-cancelled' && event.upgrade?.name === plan?.name) {
      plan = undefined;
      giveUp('the plan was cancelled on chain');
    } else if (event.event === 'chain-height' && typeof event.data?.height === 'number') height = event.data.height;
    else if (event.event === 'upgrade-detected') giveUp('the upgrade is due now');
    else return;
    void check().catch((error: unknown) => logger.warn({ err: error }, 'automatic rehearsal check failed'));
  });

  return {
    async stop() {
      stopped = true;
      off();
      const running = child;
      if (running) {
        running.proc.kill('SIGTERM');
        await running.exited;
      }
    },
  };
}

async function firstExisting(files: string[]): Promise<string | undefined> {
  for (const file of files) {
    if (
      await fs.access(file, fs.constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return file;
  }
  return undefined;
}

/**
 * This chainvisor as a command: Node with the script it was started with (`bin/chainvisor.js`), or the
 * single executable itself (its argv[1] is the executable, not a script).
 */
async function selfCommand(args: string[]): Promise<[string, string[]]> {
  const script = process.argv[1];
  const executable = script === undefined || !/\.[cm]?js$/.test(script) || path.resolve(script) === process.execPath;
  return executable ? [process.execPath, args] : [process.execPath, [script, ...args]];
}
