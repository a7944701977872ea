/**
 * The manual-upgrade runner while `run` is active: the node runs with `--halt-height=<first queued
 * height H>`; the runner re-reads the queue (./queue.ts) and asks for a restart when H changes, watches
 * the node's height to stop it at H, decides whether an exit was the halt at H, and reports a
 * governance plan at a queued height (./gov-clash.ts). Why: docs/design/upgrade.md#manual-upgrades.
 */
import { addressesFor, type ChainAddresses, type ChainClient, ChainUnavailableError, createChainReader } from '../../chain/index.js';
import type { Config } from '../../config/index.js';
import { ChainvisorError } from '../../shared/errors/index.js';
import type { EventBus } from '../../shared/events/index.js';
import { pollStat, type StatPoll } from '../../shared/fsread/index.js';
import type { Logger } from '../../shared/log.js';
import type { Running, Target } from '../due.js';
import { confirmedHalt, judgeExit, type NodeExit } from './exit-at-halt.js';
import { type ManualPlan, type QueueFiles, readQueued } from './file.js';
import { checkGovernanceClash } from './gov-clash.js';
import { type HaltArgs, haltArgs } from './halt-args.js';
import type { HeightSample } from './height.js';
import { ManualQueue } from './queue.js';
import { createTickLoop, type TickLoop } from './tick-loop.js';

export interface ManualUpgradesOptions<T extends Target = Target> {
  config: Config;
  layout: QueueFiles;
  /** A plan's folder and binary, named with the home's recase rule (home/layout's planTarget); throws on a name that cannot be a folder. */
  target: (plan: ManualPlan) => T;
  logger: Logger;
  events: EventBus;
  /** Where the node listens (src/chain/addresses.ts); by default from the settings and DAEMON_HOME's files. */
  addresses?: ChainAddresses;
  /** Replaces the chain reader (tests). */
  chain?: ChainClient;
}

export interface ManualWatchHandlers {
  /** The node must be restarted with another halt height. */
  restart(reason: string): void;
  /** The node has reached the height of `plan`: stop it and apply the upgrade. */
  due(plan: ManualPlan): void;
}

interface RunState {
  args: readonly string[];
  halt: HaltArgs;
  /** The node of this run is (as far as we know) running. */
  active: boolean;
  plan: ManualPlan | undefined;
  /** `plan` was queued without a restart (`waitForRestart`): the node runs without its halt height, so an exit is never its halt. */
  held?: boolean;
  first?: HeightSample;
  last?: HeightSample;
}

function key(plan: ManualPlan): string {
  return `${plan.name}@${plan.height}`;
}

/** Heights are checked at most this often, whatever DAEMON_POLL_INTERVAL says. */
const minHeightPollMs = 100;
/** How often, at most, the queue file is looked at while nothing changes (pollStat). */
const batchFilePollMs = 1000;
/** The governance plan is compared with the queue every this many polls. */
const govEvery = 10;

export class ManualUpgrades<T extends Target = Target> {
  private readonly options: ManualUpgradesOptions<T>;
  private readonly chain: ChainClient;
  private readonly queue: ManualQueue;
  private run: RunState | undefined;
  private handlers: ManualWatchHandlers | undefined;
  private filePoll: StatPoll | undefined;
  /** The last tick failed (a file that cannot be read): tried again on the timer, whether or not the file changes. */
  private failed = false;
  private ticks = 0;
  private readonly loop: TickLoop;
  private readonly reported = new Set<string>();
  /** Entries the node was found past: reported, left in the file, no longer halted for. */
  private readonly missed = new Set<string>();
  /** The highest height any node of this chainvisor reported. */
  private lastKnown = 0;

  constructor(options: ManualUpgradesOptions<T>) {
    this.options = options;
    // Short deadlines: near H the height is read every poll. The reader sticks to whichever of gRPC and
    // RPC answered, so a node with gRPC off adds no fallback delay per read.
    this.chain = options.chain ?? createChainReader({ addresses: options.addresses ?? addressesFor({ config: options.config }), timeoutMs: 2000 });
    // A timed tick only while something is queued (the node's height is watched), a new content waits
    // for its second read, or the last tick failed: with an empty queue the file's stat poll alone wakes
    // the runner.
    this.loop = createTickLoop({
      tick: () => this.tick(),
      intervalMs: Math.max(options.config.pollInterval, minHeightPollMs),
      wanted: () => this.queue.entries.length > 0 || this.queue.settling || this.failed,
    });
    this.queue = new ManualQueue({ layout: options.layout, logger: options.logger, events: options.events, report: (key, log) => this.report(key, log) });
  }

  /** The queue as last read (sorted by height). */
  get queued(): readonly ManualPlan[] {
    return this.queue.entries;
  }

  /** Reads the queue and drops entries `current` shows as already applied (a crash after the switch). */
  async reconcile(current: Running): Promise<void> {
    // An unreadable queue at start-up stops chainvisor (exit 78): running without its halt heights could
    // let the old binary past them. Once running, a bad edit keeps the last valid queue instead.
    await readQueued(this.options.layout);
    await this.queue.reload();
    const applied = this.queue.entries.filter((p) => this.isCurrent(p, current));
    if (applied.length === 0) return;
    for (const plan of applied)
      this.options.logger.info(
        { upgrade: plan.name, height: plan.height },
        'manual upgrade already applied (current points at it); removing it from the queue',
      );
    await this.remove(applied);
  }

  /** The node's arguments for the next start; remembers the halt height it runs with. */
  argsFor(args: readonly string[]): string[] {
    const plan = this.next();
    const halt = haltArgs(args, plan?.height ?? 0);
    this.run = { args, halt, active: true, plan: halt.owner === 'manual' ? plan : undefined };
    if (halt.owner === 'manual' && plan) {
      this.options.logger.info({ upgrade: plan.name, height: plan.height }, 'manual upgrade queued: the node runs with --halt-height=%d', plan.height);
    } else if (plan && halt.owner === 'operator') {
      this.options.logger.warn(
        { upgrade: plan.name, height: plan.height, haltHeight: halt.haltHeight },
        "the node's own --halt-height is below the queued manual upgrade; it halts there first",
      );
    } else if (plan) {
      this.options.logger.warn({ upgrade: plan.name, height: plan.height }, "manual upgrades need the node's 'start' command; not adding --halt-height");
    }
    return halt.args;
  }

  /** Starts watching the file and the node's height. */
  watch(handlers: ManualWatchHandlers): void {
    this.handlers = handlers;
    // An operator's edit of the queue is hours or days ahead of its height: a second is soon enough, and
    // polls half as often as DAEMON_POLL_INTERVAL's 300 ms at rest.
    this.filePoll = pollStat(this.options.layout.batchFile, Math.max(this.options.config.pollInterval, batchFilePollMs), () => this.loop.kick(), {
      persistent: false,
    });
    this.loop.schedule();
  }

  /** The node stopped: no height polling until the next start. */
  nodeStopped(): void {
    if (this.run) this.run = { ...this.run, active: false, plan: undefined };
  }

  /** The queued plan when the heights seen show the node's exit 0 was its halt there (./exit-at-halt.ts). */
  haltConfirmed(status: NodeExit): ManualPlan | undefined {
    return confirmedHalt(this.run?.held ? undefined : this.run, status, Date.now());
  }

  /** The queued plan when the node's exit is taken as its halt at the queued height (./exit-at-halt.ts). */
  haltedOnExit(status: NodeExit): ManualPlan | undefined {
    return judgeExit(this.run?.held ? undefined : this.run, status, Date.now(), this.options.logger);
  }

  /** Removes applied (or abandoned) entries from the file. */
  async remove(plans: readonly ManualPlan[]): Promise<void> {
    await this.queue.remove(plans);
  }

  /** The plan's folder and binary, with the home's recase rule. */
  targetOf(plan: ManualPlan): T {
    return this.options.target(plan);
  }

  close(): void {
    this.loop.close();
    this.filePoll?.close();
    this.chain.close();
  }

  private isCurrent(plan: ManualPlan, current: Running): boolean {
    try {
      return current.dir === this.targetOf(plan).dir || current.plan?.name === plan.name;
    } catch (error) {
      if (error instanceof ChainvisorError) return false; // a name that cannot be a folder is never current
      throw error;
    }
  }

  private async tick(): Promise<void> {
    this.failed = false;
    try {
      const changed = await this.queue.reload({ settle: true });
      // The height first: an entry edited in below the node's height must not become the halt height.
      await this.checkHeight();
      if (changed) this.checkHaltChange();
      if (++this.ticks % govEvery === 1) {
        const { chain, options } = this;
        await checkGovernanceClash({
          chain,
          queued: () => this.queue.entries,
          batchFile: options.layout.batchFile,
          logger: options.logger,
          report: (key, log) => this.report(key, log),
        });
      }
    } catch (error) {
      this.failed = true;
      // Reported once per distinct problem: a lasting one (permissions) must not flood the log every poll.
      const message = error instanceof Error ? error.message : String(error);
      this.report(`tick:${message}`, () => this.options.logger.warn({ err: error }, 'manual upgrade check failed; trying again every poll'));
    }
  }

  private checkHaltChange(): void {
    const run = this.run;
    if (!run) return;
    const first = this.next();
    const next = haltArgs(run.args, first?.height ?? 0);
    // Queued without the go-ahead to restart (a validator's `add-upgrade`): the node keeps its halt height
    // until its next start, and the height watch stops it when it reports the new, lower one.
    if (first?.waitForRestart && next.owner === 'manual' && (run.halt.haltHeight === 0 || first.height < run.halt.haltHeight)) {
      if (run.plan?.name !== first.name || run.plan.height !== first.height) {
        this.options.logger.warn(
          { upgrade: first.name, height: first.height, haltHeight: run.halt.haltHeight },
          'manual upgrade queued without a restart: the node keeps %s until its next start; chainvisor stops it when it reports height %d',
          run.halt.haltHeight === 0 ? 'running without --halt-height' : `--halt-height=${run.halt.haltHeight}`,
          first.height,
        );
      }
      this.run = { ...run, plan: first, held: true };
      return;
    }
    if (next.haltHeight !== run.halt.haltHeight) {
      this.handlers?.restart(
        `the first queued manual upgrade is now at ${next.haltHeight || 'none'} (the node runs with ${run.halt.haltHeight || 'no halt height'})`,
      );
      this.run = { ...run, active: false, plan: undefined };
    }
  }

  private async checkHeight(): Promise<void> {
    const run = this.run;
    // Only asked while something is queued: without manual upgrades the node is left alone.
    if (!run?.active || this.queue.entries.length === 0) return;
    const plan = run.plan;
    let height: number;
    try {
      height = await this.chain.latestHeight();
    } catch (error) {
      if (error instanceof ChainUnavailableError) return; // not listening yet, or gone: the exit path decides
      throw error;
    }
    if (this.run !== run || !run.active) return;
    this.lastKnown = Math.max(this.lastKnown, height);
    const seen = { height, at: Date.now() };
    run.first ??= seen;
    run.last = seen;
    if (!plan || run.plan !== plan) return;
    if (height === plan.height) {
      this.options.logger.info({ upgrade: plan.name, height }, 'the node has committed height %d, the manual upgrade height', height);
      run.plan = undefined;
      this.handlers?.due(plan);
    } else if (height > plan.height) {
      this.options.logger.error(
        { upgrade: plan.name, height: plan.height, nodeHeight: height },
        'the node is already at height %d, past the manual upgrade "%s" at %d: it cannot be applied at its height; remove it from %s',
        height,
        plan.name,
        plan.height,
        this.options.layout.batchFile,
      );
      run.plan = undefined;
      this.missed.add(key(plan));
      this.handlers?.restart(`the manual upgrade "${plan.name}" at ${plan.height} was missed`);
    }
  }

  /** The first queued entry not missed; entries below a height already seen are missed (reported once). */
  private next(): ManualPlan | undefined {
    for (const plan of this.queue.entries) {
      if (this.missed.has(key(plan))) continue;
      if (plan.height >= this.lastKnown) return plan;
      this.missed.add(key(plan));
      this.options.logger.error(
        { upgrade: plan.name, height: plan.height, nodeHeight: this.lastKnown },
        'the manual upgrade "%s" at height %d is below the height the node already reached (%d): it cannot be applied at its height and is ignored; remove it from %s',
        plan.name,
        plan.height,
        this.lastKnown,
        this.options.layout.batchFile,
      );
    }
    return undefined;
  }

  private report(key: string, log: () => void): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    log();
  }
}
