/**
 * Manual upgrades while `run` is active. The node runs with `--halt-height=<first queued height H>`, so
 * the old binary commits H and never H+1. This watcher:
 *   - re-reads the batch file every DAEMON_POLL_INTERVAL and asks for a node restart only when the
 *     halt height the node should run with changes (a new first entry, or the first one removed);
 *   - asks the node its height (gRPC, else its CometBFT RPC: src/chain's reader): at H the node has halted (or is about to: it cannot commit
 *     H+1), so the supervisor stops it and applies the upgrade — this covers nodes that stay up;
 *   - decides whether an exit of the node is the halt at H (status 0 while running with our
 *     halt height, and a height seen close enough to H — see `haltedOnExit`);
 *   - reports a governance plan at the height of a queued manual upgrade before it happens.
 * The queue lives in the file, so it survives chainvisor restarts; an entry leaves the file once its
 * upgrade is applied (an entry whose upgrade `current` already records is dropped at start-up).
 */
import { addressesFor, type ChainAddresses, type ChainClient, ChainUnavailableError, createChainReader } from '../../chain/index.js';
import type { Config } from '../../config/index.js';
import { type Current, type Layout, planTarget, type UpgradeTarget } from '../../home/layout/index.js';
import { ChainvisorError } from '../../shared/errors/index.js';
import type { EventBus } from '../../shared/events/index.js';
import { pollStat, type StatPoll } from '../../shared/fsread/index.js';
import type { Logger } from '../../shared/log.js';
import { type ManualPlan, readQueue, readQueued, writeQueue } from './file.js';
import { type HaltArgs, haltArgs } from './halt-args.js';
import { type HeightSample, reachedHeight } from './height.js';

export interface ManualUpgradesOptions {
  config: Config;
  layout: Layout;
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

export class ManualUpgrades {
  private readonly options: ManualUpgradesOptions;
  private readonly chain: ChainClient;
  private queue: ManualPlan[] = [];
  private text: string | undefined;
  /** A new content seen once, waiting for a second read to agree. */
  private pending: string | undefined;
  private run: RunState | undefined;
  private handlers: ManualWatchHandlers | undefined;
  private timer: NodeJS.Timeout | undefined;
  private filePoll: StatPoll | undefined;
  private ticking = false;
  /** The last tick failed (a file that cannot be read): tried again on the timer, whether or not the file changes. */
  private failed = false;
  private kickAgain = false;
  private ticks = 0;
  private closed = false;
  private readonly reported = new Set<string>();
  /** Entries the node was found past: reported, left in the file, no longer halted for. */
  private readonly missed = new Set<string>();
  /** The highest height any node of this chainvisor reported. */
  private lastKnown = 0;

  constructor(options: ManualUpgradesOptions) {
    this.options = options;
    // Short deadlines: near H the height is read every poll. The reader sticks to whichever of gRPC and
    // RPC answered, so a node with gRPC off adds no fallback delay per read.
    this.chain = options.chain ?? createChainReader({ addresses: options.addresses ?? addressesFor({ config: options.config }), timeoutMs: 2000 });
  }

  /** The queue as last read (sorted by height). */
  get queued(): readonly ManualPlan[] {
    return this.queue;
  }

  /** Reads the queue and drops entries `current` shows as already applied (a crash after the switch). */
  async reconcile(current: Current): Promise<void> {
    // An unreadable queue at start-up stops chainvisor (exit 78): running without its halt heights could
    // let the old binary past them. Once running, a bad edit keeps the last valid queue instead.
    await readQueued(this.options.layout);
    await this.reload();
    const applied = this.queue.filter((p) => this.isCurrent(p, current));
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
    this.filePoll = pollStat(this.options.layout.batchFile, Math.max(this.options.config.pollInterval, batchFilePollMs), () => this.kick(), {
      persistent: false,
    });
    this.schedule();
  }

  /** The node stopped: no height polling until the next start. */
  nodeStopped(): void {
    if (this.run) this.run = { ...this.run, active: false, plan: undefined };
  }

  /**
   * Did the node's exit end at the queued height? Status 0 (an orderly halt) while it ran with our
   * halt height; when a height was seen, the height it had reached by the exit (extrapolated from the
   * observed block rate) must be within a block of H, otherwise it was stopped by someone else.
   */
  /**
   * The queued plan when the heights seen show the node's exit 0 was its halt there (no guess, nothing
   * logged): such an exit needs no wait for a stop signal that might explain it instead.
   */
  haltConfirmed(status: { code: number | undefined; signal: string | undefined }): ManualPlan | undefined {
    const run = this.run;
    if (!run?.plan || run.last === undefined || status.signal !== undefined || status.code !== 0) return undefined;
    return reachedHeight(run.first, run.last, Date.now()) >= run.plan.height - 1 ? run.plan : undefined;
  }

  haltedOnExit(status: { code: number | undefined; signal: string | undefined }): ManualPlan | undefined {
    const run = this.run;
    const plan = run?.plan;
    if (!run || !plan || status.signal !== undefined || status.code !== 0) return undefined;
    const { first, last } = run;
    if (last === undefined) {
      this.options.logger.warn(
        { upgrade: plan.name, height: plan.height },
        'the node exited 0 with --halt-height=%d before its height could be read; taking it as the halt',
        plan.height,
      );
      return plan;
    }
    const reached = reachedHeight(first, last, Date.now());
    if (reached >= plan.height - 1) return plan;
    this.options.logger.warn(
      { upgrade: plan.name, height: plan.height, lastSeen: last.height },
      'the node exited 0 at about height %d, before the manual upgrade height %d: not the halt, not applying',
      reached,
      plan.height,
    );
    return undefined;
  }

  /** Removes applied (or abandoned) entries from the file. */
  async remove(plans: readonly ManualPlan[]): Promise<void> {
    await this.reload();
    const keep = this.queue.filter((q) => !plans.some((p) => p.name === q.name && p.height === q.height));
    await writeQueue(this.options.layout, keep);
    this.queue = keep;
    this.text = undefined;
    await this.reload();
  }

  /** The plan's folder and binary, with the layout's recase rule. */
  targetOf(plan: ManualPlan): UpgradeTarget {
    return planTarget(this.options.layout, plan);
  }

  close(): void {
    this.closed = true;
    this.filePoll?.close();
    if (this.timer) clearTimeout(this.timer);
    this.chain.close();
  }

  private isCurrent(plan: ManualPlan, current: Current): boolean {
    try {
      return current.dir === this.targetOf(plan).dir || current.plan?.name === plan.name;
    } catch (error) {
      if (error instanceof ChainvisorError) return false; // a name that cannot be a folder is never current
      throw error;
    }
  }

  /**
   * Re-reads the file; returns true when its content changed. An invalid file keeps the last queue.
   * With `settle`, a new content counts only once two reads a poll apart agree: an editor that truncates
   * and rewrites the file must not be seen half-way (an empty queue would restart the node twice).
   */
  private async reload(options: { settle: boolean } = { settle: false }): Promise<boolean> {
    const read = await readQueue(this.options.layout);
    const text = read.status === 'missing' ? '' : read.text;
    if (text === this.text) return false;
    if (options.settle && text !== this.pending) {
      this.pending = text;
      return false;
    }
    this.pending = undefined;
    this.text = text;
    if (read.status === 'invalid') {
      this.report(`invalid:${text}`, () =>
        this.options.logger.error(
          { file: this.options.layout.batchFile, reason: read.reason },
          'ignoring the invalid manual upgrade batch: %s; the last valid queue stays in force',
          read.reason,
        ),
      );
      return false;
    }
    const next = read.status === 'valid' ? read.plans : [];
    for (const plan of next.filter((n) => !this.queue.some((q) => q.name === n.name && q.height === n.height))) {
      const text = `manual upgrade "${plan.name}" queued at height ${plan.height}`;
      this.options.events.emit('upgrade-scheduled', { upgrade: { name: plan.name, height: plan.height }, text, data: { manual: true } });
    }
    this.queue = next;
    return true;
  }

  /**
   * A timed tick only while something is queued (the node's height is watched), a new content waits for
   * its second read, or the last tick failed: with an empty queue the file's stat poll alone wakes the runner, and an idle
   * `run` reads nothing (issue: quiet at rest).
   */
  private schedule(): void {
    if (this.closed || (this.queue.length === 0 && this.pending === undefined && !this.failed)) return;
    const ms = Math.max(this.options.config.pollInterval, minHeightPollMs);
    this.timer = setTimeout(() => this.kick(), ms);
    this.timer.unref();
  }

  /** Runs a tick now (the file changed, or the timer fired); one at a time. */
  private kick(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.ticking) {
      this.kickAgain = true;
      return;
    }
    this.ticking = true;
    void this.tick().finally(() => {
      this.ticking = false;
      if (this.kickAgain) {
        this.kickAgain = false;
        this.kick();
      } else {
        this.schedule();
      }
    });
  }

  private async tick(): Promise<void> {
    this.failed = false;
    try {
      const changed = await this.reload({ settle: true });
      // The height first: an entry edited in below the node's height must not become the halt height.
      await this.checkHeight();
      if (changed) this.checkHaltChange();
      if (++this.ticks % govEvery === 1) await this.checkGovernance();
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
    const next = haltArgs(run.args, this.next()?.height ?? 0);
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
    if (!run?.active || this.queue.length === 0) return;
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
    for (const plan of this.queue) {
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

  private async checkGovernance(): Promise<void> {
    if (this.queue.length === 0) return;
    let gov;
    try {
      gov = await this.chain.currentPlan();
    } catch (error) {
      if (error instanceof ChainUnavailableError) return;
      throw error;
    }
    const clash = gov && this.queue.find((p) => p.height === gov.height);
    if (!gov || !clash) return;
    this.report(`gov:${gov.name}@${gov.height}:${clash.name}`, () =>
      this.options.logger.error(
        { code: 'CHAINVISOR_BATCH_GOV_CLASH', upgrade: clash.name, height: clash.height, governance: gov.name },
        'governance plans upgrade "%s" at height %d, where the manual upgrade "%s" is queued: the node halts for the governance plan before committing that block; remove the manual entry from %s',
        gov.name,
        gov.height,
        clash.name,
        this.options.layout.batchFile,
      ),
    );
  }

  private report(key: string, log: () => void): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    log();
  }
}
