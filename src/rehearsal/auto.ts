/**
 * CHAINVISOR_REHEARSE=true: `run` rehearses each upgrade scheduled on chain once its binary is in
 * `upgrades/<name>/` (staged, or installed by hand), and again when that binary changes (its sha256 has
 * no report yet); then the binaries staged for upgrade proposals still voted (issue #45), before the vote ends. The rehearsal is `chainvisor rehearse <name>` in a child process at the lowest CPU
 * priority (nice 19) and idle I/O class (`ionice -c 3`, when installed), one at a time. It is given up
 * (SIGTERM: the child stops its scratch node and removes the scratch) when the upgrade is
 * CHAINVISOR_STAGE_WARN_BLOCKS blocks away or nearer, when free disk in CHAINVISOR_REHEARSAL_DIR runs low,
 * or when `run` stops. It never touches the live node; its result reaches the log, webhooks and metrics
 * through the record it writes (./follow.ts).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import type { Config } from '../config/index.js';
import { binaryPath, type Layout, planDir } from '../home/layout/index.js';
import type { EventBus, ProposalView, UpgradeRef } from '../shared/events/index.js';
import { hashFile } from '../shared/fsread/index.js';
import type { Logger } from '../shared/log.js';
import { startProgram } from '../shared/proc/index.js';
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
  /** Upgrades whose binary was staged for a proposal still voted (issue #45): rehearsed before the vote ends. */
  let proposed: string[] = [];
  let height: number | undefined;
  let child: { stop: AbortController; upgrade: string; exited: Promise<void>; givenUp: boolean } | undefined;
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
      // The plan on chain first (while its height is far enough), then the binaries staged for proposals
      // still voted — never with the plan's height near: a copy of the node's state is no work for then.
      if (tooNear()) return;
      const planReady = plan !== undefined && height !== undefined;
      const targets = [...(planReady && plan ? [plan.name] : []), ...proposed.filter((name) => name !== plan?.name)];
      for (const name of targets) {
        const digest = await sha(binaryOf(name)).catch(() => undefined);
        if (digest === undefined) continue;
        const done = await readRehearsals(layout).catch(() => []);
        if (done.some((r) => r.upgrade === name && r.binary_sha256 === digest)) continue;
        if (tried.has(`${name}:${digest}`)) continue;
        tried.add(`${name}:${digest}`);
        await begin(name);
        return;
      }
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
    child.stop.abort();
  }

  async function begin(name: string): Promise<void> {
    const [file, args] = await (options.command ?? selfCommand)(['rehearse', name]);
    const ionice = await firstExisting(['/usr/bin/ionice', '/bin/ionice']);
    const stop = new AbortController();
    let tail = '';
    const proc = startProgram(ionice ?? file, ionice ? ['-c', '3', file, ...args] : args, {
      signal: stop.signal,
      // Given up, it stops its scratch node and removes the scratch folder (a copy of the data): time for that.
      killAfterMs: removeScratchMs,
      onLine: (line, _length, stream) => {
        if (stream === 'stderr') tail = `${tail}${line}\n`.slice(-4000);
      },
    });
    try {
      if (proc.pid !== undefined) os.setPriority(proc.pid, 19);
    } catch {
      // not permitted here: it still runs, at normal priority
    }
    // Short of memory, the kernel kills the rehearsal (and its scratch node, which inherits this), never the live node first.
    if (proc.pid !== undefined) await fs.writeFile(`/proc/${proc.pid}/oom_score_adj`, '1000').catch(() => undefined);
    logger.info({ upgrade: name, rehearsalPid: proc.pid }, `rehearsing upgrade "${name}" on a copy of this node's state, in the background`);
    const exited = proc.done.then((result) => {
      child = undefined;
      const { exitCode: code, signal } = result;
      if (result.cause) logger.warn({ upgrade: name, err: result.cause }, `could not start the rehearsal of "${name}": ${result.cause.message}`);
      else if (code === 0 || code === 83) logger.debug({ upgrade: name, code }, 'rehearsal finished');
      else {
        const said = tail
          .split('\n')
          .filter((l) => l.startsWith('chainvisor: '))
          .join(' ');
        logger.warn({ upgrade: name, code, signal }, `could not rehearse upgrade "${name}" (exit ${code ?? signal}): ${said || tail.slice(-500)}`);
      }
    });
    child = { stop, upgrade: name, exited, givenUp: false };
  }

  const off = bus.on((event) => {
    if ((event.event === 'upgrade-scheduled' || event.event === 'upgrade-rescheduled') && event.data?.manual !== true && event.upgrade) plan = event.upgrade;
    else if (event.event === 'upgrade-cancelled' && event.upgrade?.name === plan?.name) {
      plan = undefined;
      giveUp('the plan was cancelled on chain');
    } else if (event.event === 'chain-height' && typeof event.data?.height === 'number') height = event.data.height;
    else if (event.event === 'proposals' && Array.isArray(event.data?.proposals)) {
      const staged = (event.data.proposals as ProposalView[]).filter((p) => p.binary.state === 'staged').map((p) => p.name);
      if (staged.join('\n') === proposed.join('\n')) return;
      proposed = staged;
    } else if (event.event === 'upgrade-detected') giveUp('the upgrade is due now');
    else return;
    void check().catch((error: unknown) => logger.warn({ err: error }, 'automatic rehearsal check failed'));
  });

  return {
    async stop() {
      stopped = true;
      off();
      const running = child;
      if (running) {
        running.stop.abort();
        await running.exited;
      }
    },
  };
}

/** How long a rehearsal given up has to stop its scratch node and remove its scratch folder before it is killed. */
const removeScratchMs = 120_000;

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
