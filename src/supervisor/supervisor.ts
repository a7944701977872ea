/**
 * The supervisor: runs the node, watches for its upgrade plan, applies the upgrade and restarts it.
 *
 *   start-up: an upgrade already due (data/upgrade-info.json newer than `current`) is applied first,
 *             so the old binary never runs past its halt height;
 *   running:  the node halts in one of two ways — exits (non-zero) right after writing the file, or
 *             stays up — and both end in the same sequence: stop → upgrade → restart;
 *   stopping: SIGTERM/SIGINT/SIGQUIT are forwarded, then SIGKILL after DAEMON_SHUTDOWN_GRACE, and
 *             chainvisor exits with the node's status. SIGHUP is only forwarded.
 */
import { constants } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { pruneBackups } from '../backup/index.js';
import { type ManualPlan, ManualUpgrades } from '../batch/index.js';
import type { Config } from '../config/index.js';
import { ChainvisorError, ExitCode } from '../errors/index.js';
import { type EventBus, createEventBus } from '../events/index.js';
import { type Current, type Layout, binaryPath, checkNodeBinary, readCurrent } from '../layout/index.js';
import type { NodeTracker } from '../lock/index.js';
import type { Logger } from '../log/index.js';
import { type Plan, readUpgradeInfo, skipHeights, upgradeInfoError } from '../plan/index.js';
import { type Standby, startStandby } from '../proc/index.js';
import { RestartPolicy, afterNodeExit } from '../restart/index.js';
import { type PlanWatcher, startPlanWatcher } from '../staging/index.js';
import { type UpgradeInfoWatcher, watchUpgradeInfo } from '../watcher/index.js';
import { type Verdict, upgradeDue } from './due.js';
import { type ExitStatus, type NodeProcess, describeExit, exitCodeOf, nodeEnvironment, startNode } from './node-process.js';
import { type DownloadFn, applyUpgrade } from './upgrade.js';

export interface SupervisorOptions {
  config: Config;
  layout: Layout;
  /** The node's arguments, verbatim. */
  args: readonly string[];
  logger: Logger;
  /** Replaces the real downloader (tests). */
  download?: DownloadFn;
  /** Where the supervisor's events go (metrics, webhooks, status listen here); a private bus by default. */
  events?: EventBus;
  /** Records each node it starts (pid, start time, run id) so a later start can find an orphan. */
  tracker?: NodeTracker;
}

const stopSignals = ['SIGTERM', 'SIGINT', 'SIGQUIT'] as const;
const forwardedSignals = [...stopSignals, 'SIGHUP'] as const;

type Wake =
  | { kind: 'exited'; status: ExitStatus }
  | { kind: 'due'; plan: Plan; dir: string }
  | { kind: 'error'; error: unknown }
  | { kind: 'stop' }
  // Manual upgrades (src/batch): the halt height must change, or the node reached a queued height.
  | { kind: 'restart'; reason: string }
  | { kind: 'manual-due'; plan: ManualPlan };

export class Supervisor {
  private readonly config: Config;
  private readonly layout: Layout;
  private readonly args: readonly string[];
  private readonly logger: Logger;
  private readonly skip: ReadonlySet<number>;
  private readonly abort = new AbortController();
  private readonly download: DownloadFn | undefined;
  private readonly tracker: NodeTracker | undefined;
  /** The node's environment, built at its first start (nodeEnvironment). */
  private nodeEnv: NodeJS.ProcessEnv | undefined;
  /** The next switch's programs, forked ahead (readyStandbys). */
  private readonly standbys: { preUpgrade?: Standby; node?: Standby } = {};
  private standbyTimer: NodeJS.Timeout | undefined;
  readonly events: EventBus;
  private node: NodeProcess | undefined;
  private watcher: UpgradeInfoWatcher | undefined;
  private planWatcher: PlanWatcher | undefined;
  private stopSignal: NodeJS.Signals | undefined;
  private wake: ((event: Wake) => void) | undefined;
  private readonly reportedSkips = new Set<string>();
  private reportedInvalid: string | undefined;
  private readonly manual: ManualUpgrades;
  private readonly restarts: RestartPolicy;
  private lastUpgrade: { name: string; at: number } | undefined;
  /** What the last upgrade switched `current` to, its binary checked by that sequence: launch() need not read or check it again. */
  private switchedTo: Current | undefined;
  /** What `current` was when the running node started: plans the watcher sees are judged against it. */
  private running: Current | undefined;
  /** The node record of the next node, begun while the upgrade sequence runs. */
  private nextRecord: { binary: string; written: Promise<void> } | undefined;
  /** CHAINVISOR_BACKUP_KEEP's removal of old backups, due after the last upgrade; run once the new node is up. */
  private pruneDue = false;
  private pruning: Promise<unknown> = Promise.resolve();

  constructor(options: SupervisorOptions) {
    this.config = options.config;
    this.layout = options.layout;
    this.args = options.args;
    this.logger = options.logger;
    this.download = options.download;
    this.tracker = options.tracker;
    this.events = options.events ?? createEventBus();
    this.skip = skipHeights(options.args);
    this.manual = new ManualUpgrades({ config: this.config, layout: this.layout, logger: this.logger, events: this.events });
    this.restarts = new RestartPolicy(this.config);
  }

  /** Runs until the node exits for good or chainvisor is stopped; resolves to the exit code. */
  async run(): Promise<number> {
    const handlers = forwardedSignals.map((signal) => {
      const handler = () => this.onSignal(signal);
      process.on(signal, handler);
      return () => process.off(signal, handler);
    });
    try {
      await this.applyIfDueAtStartup();
      if (this.stopSignal) return 128 + signalNumber(this.stopSignal);
      await this.manual.reconcile(await readCurrent(this.layout));
      this.manual.watch({
        restart: (reason) => this.wake?.({ kind: 'restart', reason }),
        due: (plan) => this.wake?.({ kind: 'manual-due', plan }),
      });
      this.watcher = watchUpgradeInfo({
        home: this.layout.home,
        file: this.layout.upgradeInfoFile,
        mode: this.config.watch === 'poll' ? 'poll' : 'auto',
        pollIntervalMs: this.config.pollInterval,
        logger: this.logger,
        onPlan: (plan) => void this.onPlan(plan),
        onInvalid: (reason, text) => this.reportInvalid(reason, text),
      });
      if (this.config.planPollInterval > 0) {
        this.planWatcher = startPlanWatcher({
          config: this.config,
          layout: this.layout,
          logger: this.logger,
          events: this.events,
          ...(this.download ? { download: this.download } : {}),
        });
      }
      // Never hold the node back on file events: polling covers until (or unless) they are live.
      const ready = await Promise.race([this.watcher.ready.then(() => true), delay(5000, false, { ref: false })]);
      if (!ready) this.logger.warn('file events are not ready after 5 s; starting the node and relying on polling meanwhile');
      return await this.loop();
    } catch (error) {
      // Asked to stop mid-sequence: whatever ended the sequence (an abort, a cancelled download)
      // is the stop's doing, not a failed upgrade.
      if (this.stopSignal && this.abort.signal.aborted) {
        // One line without a stack: a known error (a cancelled download says so itself) or the abort
        // itself; anything else keeps its stack, as a bug would.
        const known = error instanceof ChainvisorError;
        const aborted = error instanceof Error && error.name === 'AbortError';
        this.logger.warn(
          known ? { signal: this.stopSignal, code: error.code } : aborted ? { signal: this.stopSignal } : { signal: this.stopSignal, err: error },
          `stopped while applying an upgrade; current was not switched — start chainvisor again to finish it${known ? ` (${error.message})` : ''}`,
        );
        return 128 + signalNumber(this.stopSignal);
      }
      throw error;
    } finally {
      for (const off of handlers) off();
      clearTimeout(this.standbyTimer);
      this.standbys.preUpgrade?.dismiss();
      this.standbys.node?.dismiss();
      // The next node's record was begun but that node never started (a failed upgrade, a stop).
      const begun = this.nextRecord;
      if (begun) {
        this.nextRecord = undefined;
        await begun.written.catch(() => undefined);
        await this.tracker?.notSpawned();
      }
      this.manual.close();
      await this.pruning;
      await this.watcher?.close();
      await this.planWatcher?.stop();
    }
  }

  private async loop(): Promise<number> {
    for (;;) {
      const node = await this.launch();
      // Removing old backups (possibly hundreds of GB) never holds back the new node: it starts first.
      this.prune();
      this.readyStandbys();
      const startedAt = Date.now();
      const event = await new Promise<Wake>((resolve) => {
        this.wake = resolve;
        // A spawn failure rejects `exited`: it surfaces as the error it is.
        node.exited.then((status) => resolve({ kind: 'exited', status }), (error: unknown) => resolve({ kind: 'error', error }));
        if (this.stopSignal) resolve({ kind: 'stop' });
      });
      this.wake = undefined;
      // A node that halts at once: the standbys are not forked in the middle of its switch.
      clearTimeout(this.standbyTimer);

      if (event.kind === 'stop' || (this.stopSignal && event.kind === 'exited')) {
        const status = await node.exited;
        this.logger.info({ event: 'node-stopped', node: describeExit(status) }, 'node stopped; chainvisor exits with its status');
        return exitCodeOf(status);
      }
      if (event.kind === 'error') {
        await node.stop({ graceMs: this.config.shutdownGrace, killAtZero: true });
        throw event.error;
      }
      let plan: Plan;
      let dir: string;
      let manual: ManualPlan | undefined;
      // Set when the node is still stopping: the upgrade sequence begins meanwhile.
      let stopped: Promise<unknown> | undefined;
      const detectedAt = Date.now();
      if (event.kind === 'restart') {
        this.logger.info({ reason: event.reason }, 'restarting the node with a new halt height');
        await node.stop({ graceMs: this.config.shutdownGrace > 0 ? this.config.shutdownGrace : 30_000, killAtZero: false });
        this.manual.nodeStopped();
        if (this.stopSignal) return 128 + signalNumber(this.stopSignal);
        continue;
      }
      if (event.kind === 'manual-due') {
        ({ plan, dir } = { plan: event.plan, dir: this.manual.dirOf(event.plan) });
        manual = event.plan;
        this.logger.info({ event: 'upgrade-detected', upgrade: plan.name, height: plan.height }, 'manual upgrade height reached; stopping the node');
        stopped = node.stop({ graceMs: this.config.shutdownGrace, killAtZero: true });
      } else if (event.kind === 'due') {
        ({ plan, dir } = event);
        this.logger.info({ event: 'upgrade-detected', upgrade: plan.name, height: plan.height }, 'upgrade needed; stopping the node');
        stopped = node.stop({ graceMs: this.config.shutdownGrace, killAtZero: true });
      } else {
        // The node exited: did it halt for an upgrade? Only the file says so (never its output).
        const due = await this.dueFromFile();
        manual = due ? undefined : this.manual.haltedOnExit(event.status);
        if (!due && !manual) {
          const { code, signal } = event.status;
          const exit = { code, signal, pid: node.pid, ranMs: Date.now() - startedAt, described: describeExit(event.status) };
          const next = await afterNodeExit(exit, { policy: this.restarts, restartMax: this.config.restartMax, events: this.events, logger: this.logger, signal: this.abort.signal, lastUpgrade: this.lastUpgrade });
          if (this.stopSignal) return 128 + signalNumber(this.stopSignal);
          if (next === 'exit') return exitCodeOf(event.status);
          continue;
        }
        ({ plan, dir } = due ?? { plan: manual as ManualPlan, dir: this.manual.dirOf(manual as ManualPlan) });
        this.logger.info(
          { event: 'upgrade-detected', upgrade: plan.name, height: plan.height, node: describeExit(event.status) },
          manual ? 'node halted at the manual upgrade height' : 'node halted for an upgrade',
        );
      }
      this.manual.nodeStopped();
      try {
        await this.upgrade(plan, dir, { delay: true, detectedAt, ...(stopped ? { nodeStopped: stopped } : {}) });
      } finally {
        // Never leave (or end chainvisor) with the node still stopping.
        await stopped?.catch(() => undefined);
      }
      if (manual) await this.manual.remove([manual]);
      this.lastUpgrade = { name: plan.name, at: Date.now() };
      if (!this.config.restartAfterUpgrade) {
        this.prune();
        this.logger.info('DAEMON_RESTART_AFTER_UPGRADE is false; exiting after the switch');
        return ExitCode.ok;
      }
      if (this.stopSignal) return 128 + signalNumber(this.stopSignal);
    }
  }

  private async launch(): Promise<NodeProcess> {
    // Right after a switch the upgrade sequence has just written `current` and checked this binary (and
    // warned once if others can write it).
    const switched = this.switchedTo;
    this.switchedTo = undefined;
    const current = switched ?? (await readCurrent(this.layout));
    const binary = binaryPath(this.layout, current.dir);
    if (!switched && !(await checkNodeBinary(binary, { logger: this.logger, when: 'starting the node', exitCode: ExitCode.config }))) {
      throw new ChainvisorError('CHAINVISOR_NO_BINARY', `no node binary at ${binary} (current -> ${current.dir})`, {
        hint:
          current.dir === 'genesis'
            ? "run 'chainvisor init <path-to-binary>' first"
            : `install it with 'chainvisor add-upgrade ${current.plan?.name ?? '<name>'} <path-to-binary> --force'`,
        exitCode: ExitCode.config,
      });
    }
    const args = this.manual.argsFor(this.args);
    this.logger.info({ event: 'node-started', binary, args, current: current.dir }, 'starting node');
    const record = this.nextRecord;
    this.nextRecord = undefined;
    await (record?.binary === binary ? record.written : this.tracker?.beforeSpawn(binary));
    this.nodeEnv ??= nodeEnvironment(this.tracker?.env);
    // A standby runs the node only right after a switch, where pre-upgrade has just run this very file: a
    // binary that cannot be run is then reported by the spawn, as at any other start.
    this.node = startNode(binary, args, this.logger, this.nodeEnv, switched ? this.standbys.node : undefined);
    this.tracker?.spawned(this.node);
    this.running = current;
    this.events.emit('node-started', { text: `node started: ${binary}`, data: { pid: this.node.pid, binary, current: current.dir } });
    const started = this.node;
    void started.exited.then(
      (status) => this.events.emit('node-stopped', { text: `node stopped (${describeExit(status)})`, data: { pid: started.pid, code: status.code, signal: status.signal } }),
      () => undefined,
    );
    return this.node;
  }

  private context() {
    return {
      config: this.config,
      layout: this.layout,
      logger: this.logger,
      signal: this.abort.signal,
      events: this.events,
      ...(this.download ? { download: this.download } : {}),
    };
  }

  /** The upgrade sequence with its events: detected → applied (with its duration) or failed. */
  private async upgrade(plan: Plan, dir: string, options: { delay: boolean; detectedAt: number; nodeStopped?: Promise<unknown> }): Promise<void> {
    const upgrade = { name: plan.name, height: plan.height };
    this.events.emit('upgrade-detected', { upgrade, text: `upgrade "${plan.name}" needed at height ${plan.height}` });
    const binary = binaryPath(this.layout, dir);
    const tracker = this.tracker;
    // The next node's record, written beside the sequence rather than before the spawn (a file write is
    // a few trips through the thread pool, on the path of every switch). Once the old node is down: its
    // exit leaves the newer record in place.
    if (tracker && this.config.restartAfterUpgrade) {
      this.nextRecord = { binary, written: Promise.resolve(options.nodeStopped).catch(() => undefined).then(() => tracker.beforeSpawn(binary)) };
    }
    try {
      // A download of this binary started before the halt is the same one the sequence needs: wait for it.
      this.planWatcher?.crossCheck(plan);
      await this.planWatcher?.settle(plan);
      await applyUpgrade(plan, dir, this.context(), {
        delay: options.delay,
        ...(options.nodeStopped ? { nodeStopped: options.nodeStopped } : {}),
        ...(this.standbys.preUpgrade ? { preUpgradeStandby: this.standbys.preUpgrade } : {}),
      });
      this.switchedTo = { dir, plan };
      // CHAINVISOR_BACKUP_KEEP: old backups go only once the upgrade they could undo is behind us.
      this.pruneDue = !this.config.unsafeSkipBackup;
    } catch (error) {
      if (!(this.stopSignal && this.abort.signal.aborted)) {
        const reason = error instanceof Error ? error.message : String(error);
        const text = `upgrade "${plan.name}" at height ${plan.height} failed: ${reason}`;
        this.events.emit('upgrade-failed', { upgrade, text, data: { code: (error as { code?: unknown }).code } });
        this.logger.error({ event: 'upgrade-failed', upgrade: plan.name, height: plan.height, code: (error as { code?: unknown }).code }, text);
      }
      throw error;
    }
    const ms = Date.now() - options.detectedAt;
    this.events.emit('upgrade-applied', { upgrade, text: `upgrade "${plan.name}" at height ${plan.height} applied: current -> ${dir}`, data: { dir, ms } });
  }

  /** Start-up reconciliation: never start the old binary past its halt height. */
  private async applyIfDueAtStartup(): Promise<void> {
    const due = await this.dueFromFile();
    if (!due) return;
    this.logger.warn({ event: 'upgrade-detected', upgrade: due.plan.name, height: due.plan.height }, 'an upgrade is already due at start-up; applying it before starting the node');
    await this.upgrade(due.plan, due.dir, { delay: false, detectedAt: Date.now() });
  }

  /** Reads upgrade-info.json now and returns the plan when it must be applied. */
  private async dueFromFile(): Promise<{ plan: Plan; dir: string } | undefined> {
    // Both files at once; `current` matters (and its errors surface) only when there is a plan.
    const [read, current] = await Promise.allSettled([readUpgradeInfo(this.layout.upgradeInfoFile), readCurrent(this.layout)]);
    if (read.status === 'rejected') throw read.reason;
    if (read.value.status === 'missing') return undefined;
    if (read.value.status === 'invalid') {
      this.reportInvalid(read.value.reason, read.value.text);
      return undefined;
    }
    if (current.status === 'rejected') throw current.reason;
    const verdict = this.verdict(read.value.plan, current.value);
    return verdict.due ? { plan: read.value.plan, dir: verdict.dir } : undefined;
  }

  private verdict(plan: Plan, current: Current): Verdict {
    const verdict = upgradeDue(plan, current, { recase: !this.config.disableRecase, skipHeights: this.skip });
    if (!verdict.due) {
      const key = `${plan.name}@${plan.height}`;
      if (verdict.skipped && !this.reportedSkips.has(key)) {
        this.reportedSkips.add(key);
        this.logger.warn({ upgrade: plan.name, height: plan.height }, 'upgrade skipped: %s; not switching binaries', verdict.why);
      } else {
        this.logger.debug({ upgrade: plan.name }, 'not an upgrade to apply: %s', verdict.why);
      }
    }
    return verdict;
  }

  /** An invalid upgrade-info.json is reported once per content, whichever path read it. */
  private reportInvalid(reason: string, text: string): void {
    const key = `${reason}:${text}`;
    if (this.reportedInvalid === key) return;
    this.reportedInvalid = key;
    const { code, hint } = upgradeInfoError(this.layout.upgradeInfoFile, reason);
    this.logger.error(
      { file: this.layout.upgradeInfoFile, reason, code, hint },
      'ignoring invalid upgrade-info.json: %s; supervision goes on — the node (or whoever wrote the file) must write a valid plan',
      reason,
    );
  }

  /** From the watcher: a new valid plan appeared while the node runs (the stay-up halt). */
  private async onPlan(plan: Plan): Promise<void> {
    try {
      // Judged against what the running node was started from (read again when no node has run yet).
      const verdict = this.verdict(plan, this.running ?? (await readCurrent(this.layout)));
      if (verdict.due) this.wake?.({ kind: 'due', plan, dir: verdict.dir });
    } catch (error) {
      // For example a plan name that cannot be a folder: the node has halted on it and cannot go on.
      this.wake?.({ kind: 'error', error });
    }
  }

  /**
   * Forks the next switch's two programs ahead (src/proc/standby.ts), once the node has had a moment to
   * start: each fork blocks chainvisor's event loop for about 1.5 ms, which a switch then does not pay.
   * One that cannot be used when it is needed (the shell was killed) is dismissed and the program
   * spawned as before.
   */
  private readyStandbys(): void {
    clearTimeout(this.standbyTimer);
    this.standbyTimer = setTimeout(() => {
      if (this.stopSignal) return;
      try {
        if (!this.standbys.preUpgrade?.usable) this.standbys.preUpgrade = startStandby({ stdio: 'pipe-output' });
        if (this.config.restartAfterUpgrade && !this.standbys.node?.fits(this.nodeEnv)) {
          this.standbys.node?.dismiss();
          this.standbys.node = startStandby({ stdio: 'inherit', env: this.nodeEnv });
        }
        const pids = [this.standbys.preUpgrade.pid, this.standbys.node?.pid];
        this.logger.debug({ pids }, "next switch's pre-upgrade and node forked ahead (waiting shells named chainvisor-standby)");
      } catch (error) {
        // Only a speed-up: never a reason to disturb the running node.
        this.logger.warn({ err: error }, 'could not fork the next switch\'s programs ahead; they will be started at the switch');
      }
    }, standbyDelayMs);
    this.standbyTimer.unref();
  }

  /** Starts the removal of old backups due after an upgrade; awaited before run() returns. It never throws. */
  private prune(): void {
    if (!this.pruneDue) return;
    this.pruneDue = false;
    this.pruning = pruneBackups({ config: this.config, layout: this.layout, logger: this.logger });
  }

  private onSignal(signal: NodeJS.Signals): void {
    const node = this.node;
    if (signal === 'SIGHUP') {
      node?.signal(signal);
      return;
    }
    if (this.stopSignal) {
      this.logger.warn({ signal }, 'second stop signal: killing the node now');
      node?.signal('SIGKILL');
      return;
    }
    this.stopSignal = signal;
    this.abort.abort();
    this.logger.info({ signal }, 'asked to stop; forwarding to the node');
    if (node && !node.hasExited()) {
      node.signal(signal);
      if (this.config.shutdownGrace > 0) {
        setTimeout(() => {
          if (!node.hasExited()) {
            this.logger.warn({ graceMs: this.config.shutdownGrace }, 'node still running after DAEMON_SHUTDOWN_GRACE; sending SIGKILL');
            node.signal('SIGKILL');
          }
        }, this.config.shutdownGrace).unref();
      }
    }
    this.wake?.({ kind: 'stop' });
  }
}

/** How long after a node's start its next switch's standbys are forked (out of the way of its start). */
const standbyDelayMs = 100;

function signalNumber(signal: NodeJS.Signals): number {
  return constants.signals[signal] ?? 0;
}
