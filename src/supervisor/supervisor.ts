/**
 * The supervisor: the run loop and the composition root. It starts the node and waits for a wake-up —
 * the node's exit, a due plan (src/watcher/detector.ts), a manual upgrade height (src/supervisor/manual), a stop signal
 * (signals.ts) — and answers each:
 *
 *   start-up: an upgrade already due (data/upgrade-info.json newer than `current`) is applied first,
 *             so the old binary never runs past its halt height;
 *   running:  the node halts in one of two ways — exits (non-zero) right after writing the file, or
 *             stays up — and both end in the same sequence: stop → upgrade → restart;
 *   stopping: the signal is forwarded to the node, and chainvisor exits with the node's status.
 */
import { setTimeout as delay } from 'node:timers/promises';

import { type ChainAddresses, resolveChainAddresses } from '../chain/index.js';
import type { Config } from '../config/index.js';
import type { Downloader } from '../download/index.js';
import { pruneBackups } from '../home/backup/index.js';
import { type Layout, readCurrent } from '../home/layout/index.js';
import { createSignGuard, type NodeTracker } from '../home/lock/index.js';
import { createTwinCheck } from '../home/twin/index.js';
import { ExitCode } from '../shared/errors/index.js';
import { type Detected, logEvents } from '../shared/event-log.js';
import { createEventBus, type EventBus } from '../shared/events/index.js';
import type { Logger } from '../shared/log.js';
import { Detector, type DetectorWake, type Due } from '../watcher/detector.js';
import { type PlanWatcher, startPlanWatcher } from '../watcher/plan-watch.js';
import { type LaunchContext, launchNode } from './launch.js';
import { type ManualPlan, ManualUpgrades } from './manual/index.js';
import { describeExit, exitCodeOf, type ExitStatus, nodeEnvironment, type NodeProcess } from './node-process.js';
import { type AfterExitContext, afterNodeExit, RestartPolicy } from './restart/index.js';
import { groupSignalSettleMs, StopSignals } from './signals.js';
import { Standbys } from './standbys.js';
import { abandonSwitch, restartsAfterSwitch, runUpgrade, type Switched, UpgradeFollows } from './upgrade/index.js';
import { SwitchWarming } from './warming.js';

export interface SupervisorOptions {
  config: Config;
  layout: Layout;
  /** The node's arguments, verbatim. */
  args: readonly string[];
  logger: Logger;
  /** Replaces the real downloader (tests). */
  download?: Downloader;
  /** Where the supervisor's events go (metrics, webhooks, status listen here); a private bus by default. */
  events?: EventBus;
  /** Records each node it starts (pid, start time, run id) so a later start can find an orphan. */
  tracker?: NodeTracker;
  /** Where the node's gRPC and RPC listen (src/chain); by default from the settings and DAEMON_HOME's files. */
  addresses?: ChainAddresses;
}

type Wake =
  | DetectorWake
  | { kind: 'exited'; status: ExitStatus }
  | { kind: 'stop' }
  // Manual upgrades (src/supervisor/manual): the halt height must change, or the node reached a queued height.
  | { kind: 'restart'; reason: string }
  | { kind: 'manual-due'; plan: ManualPlan };

export class Supervisor {
  readonly events: EventBus;
  private readonly options: SupervisorOptions;
  private readonly config: Config;
  private readonly logger: Logger;
  private readonly abort = new AbortController();
  private readonly detector: Detector;
  private readonly manual: ManualUpgrades;
  /** What a node's exit with no upgrade pending is judged by (src/supervisor/restart). */
  private readonly restarts: Omit<AfterExitContext, 'lastUpgrade'>;
  private readonly standbys: Standbys;
  /** The downloader a test put in place of the real one, if any. */
  private readonly downloader: { download?: Downloader };
  private stop: StopSignals | undefined;
  private planWatcher: PlanWatcher | undefined;
  private nodeEnv: NodeJS.ProcessEnv | undefined; // built at the node's first start (nodeEnvironment)
  private node: NodeProcess | undefined;
  private wake: ((event: Wake) => void) | undefined;
  private lastUpgrade: { name: string; at: number } | undefined;
  private pruning: Promise<unknown> = Promise.resolve();
  /** The launch point's guards and hooks (launch.ts): the sign guard (#28), the twin check (#32). */
  private readonly launching: LaunchContext;
  /** The network followed after each upgrade (upgrade/8-follow.ts). */
  private readonly follows: UpgradeFollows;
  /** A node has been started (or refused) in this run: CHAINVISOR_TWIN_WAIT is for the first start only. */
  private started = false;
  /** The switch rehearsed ahead when an upgrade is coming (warming.ts). */
  private readonly warming: SwitchWarming;

  constructor(options: SupervisorOptions) {
    this.options = options;
    ({ config: this.config, logger: this.logger } = options);
    this.events = options.events ?? createEventBus();
    // The log lines of the events follow them (each is emitted once, where it happens).
    logEvents(this.events, this.logger);
    const rpc = () => options.addresses?.rpc ?? resolveChainAddresses({ home: this.config.home, args: options.args }).rpc;
    this.follows = new UpgradeFollows({ events: this.events, logger: this.logger, warnMs: this.config.confirmWarn, rpc });
    this.detector = new Detector({ config: this.config, layout: options.layout, logger: this.logger, args: options.args });
    const addresses = options.addresses ? { addresses: options.addresses } : {};
    this.manual = new ManualUpgrades({ config: this.config, layout: options.layout, logger: this.logger, events: this.events, ...addresses });
    const { restartMax } = this.config;
    this.restarts = { policy: new RestartPolicy(this.config), restartMax, events: this.events, logger: this.logger, signal: this.abort.signal };
    this.standbys = new Standbys(this.logger);
    this.warming = new SwitchWarming({ config: this.config, layout: options.layout, logger: this.logger, events: this.events });
    this.downloader = options.download ? { download: options.download } : {};
    const { layout, tracker } = options;
    this.launching = {
      layout,
      logger: this.logger,
      events: this.events,
      tracker,
      standbys: this.standbys,
      signal: this.abort.signal,
      signGuard: createSignGuard({ layout, logger: this.logger, mode: this.config.signGuard }),
      twinCheck: createTwinCheck({ layout, logger: this.logger, events: this.events, config: this.config }),
      abandon: (s) => abandonSwitch(s, tracker),
      // A twin seen while the node runs stops it, and the error ends the run whatever the restart policy.
      keyInUse: (error) => this.wake?.({ kind: 'error', error }),
    };
  }

  /** Runs until the node exits for good or chainvisor is stopped; resolves to the exit code. */
  async run(): Promise<number> {
    const { config, layout, logger } = this.options;
    const stop = new StopSignals({
      logger,
      graceMs: config.shutdownGrace,
      node: () => this.node,
      onStop: () => {
        this.abort.abort();
        this.standbys.cancel();
        this.wake?.({ kind: 'stop' });
      },
    });
    this.stop = stop;
    try {
      const startup = await this.detector.dueFromFile();
      let switched: Switched | undefined;
      if (startup) {
        switched = await this.upgrade(startup, { delay: false, detectedAt: Date.now(), detected: { how: 'start-up' } });
        this.warming.switched();
      }
      if (stop.signal) {
        await abandonSwitch(switched, this.options.tracker);
        return stop.exitCode;
      }
      await this.manual.reconcile(switched?.current ?? (await readCurrent(layout)));
      this.manual.watch({
        restart: (reason) => this.wake?.({ kind: 'restart', reason }),
        due: (plan) => this.wake?.({ kind: 'manual-due', plan }),
      });
      const ready = this.detector.watch((event) => this.wake?.(event));
      if (config.planPollInterval > 0) {
        const addresses = this.options.addresses ? { addresses: this.options.addresses } : {};
        this.planWatcher = startPlanWatcher({ config, layout, logger, events: this.events, ...addresses, ...this.downloader });
      }
      // Never hold the node back on file events: polling covers until (or unless) they are live.
      if (!(await Promise.race([ready.then(() => true), delay(5000, false, { ref: false })]))) {
        logger.warn('file events are not ready after 5 s; starting the node and relying on polling meanwhile');
      }
      return await this.loop(switched);
    } catch (error) {
      // Asked to stop mid-sequence: whatever ended the sequence (an abort, a cancelled download)
      // is the stop's doing, not a failed upgrade.
      if (stop.signal && this.abort.signal.aborted) return stop.stoppedMidUpgrade(error);
      throw error;
    } finally {
      stop.dispose();
      this.follows.stop();
      this.standbys.dismiss();
      this.manual.close();
      await this.pruning;
      await this.warming.close();
      await this.detector.close();
      await this.planWatcher?.stop();
      await this.launching.signGuard.close();
      await this.launching.twinCheck.close();
    }
  }

  /** Launches the node, waits for a wake-up and answers it, until chainvisor exits. */
  private async loop(first: Switched | undefined): Promise<number> {
    const stop = this.stop as StopSignals;
    let switched = first;
    for (;;) {
      // Removing old backups (possibly hundreds of GB) never holds back the new node: it starts first.
      const pruneDue = switched !== undefined && !this.config.unsafeSkipBackup;
      const node = await this.launch(switched);
      if (node === undefined) return stop.exitCode; // asked to stop before the node could start
      if (switched !== undefined) this.follows.start();
      if (pruneDue) this.prune();
      this.standbys.readySoon(this.nodeEnv, this.config.restartAfterUpgrade);
      const startedAt = Date.now();
      const event = await new Promise<Wake>((resolve) => {
        this.wake = resolve;
        // A spawn failure rejects `exited`: it surfaces as the error it is.
        node.exited.then(
          (status) => resolve({ kind: 'exited', status }),
          (error: unknown) => resolve({ kind: 'error', error }),
        );
        if (stop.signal) resolve({ kind: 'stop' });
      });
      this.wake = undefined;
      this.standbys.cancel();
      this.warming.pause();
      // The follow ends with the node it follows (an exit, a stop, the next upgrade); a restart for a new
      // halt height brings the same node back on the same RPC.
      if (event.kind !== 'restart') this.follows.stop();

      if (event.kind === 'stop' || (stop.signal && event.kind === 'exited')) return stop.nodeStopped(await node.exited);
      if (event.kind === 'error') {
        await node.stop({ graceMs: this.config.shutdownGrace, killAtZero: true });
        throw event.error;
      }
      if (event.kind === 'restart') {
        this.logger.info({ reason: event.reason }, 'restarting the node with a new halt height');
        await node.stop({ graceMs: this.config.shutdownGrace > 0 ? this.config.shutdownGrace : 30_000, killAtZero: false });
        this.manual.nodeStopped();
        if (stop.signal) return stop.exitCode;
        switched = undefined;
        continue;
      }
      const detectedAt = Date.now();
      let due: Due;
      let detected: Detected;
      let manual: ManualPlan | undefined;
      // Set when the node is still stopping: the upgrade sequence begins meanwhile.
      let stopping: Promise<unknown> | undefined;
      if (event.kind === 'exited') {
        // The node exited: did it halt for an upgrade? Only the file says so (never its output).
        const file = await this.detector.dueFromFile();
        // A stop sent to the whole group can show the node's exit before chainvisor's own signal: an orderly
        // stop, never a crash, an after-upgrade event, a restart, nor a manual halt taken on a guess (SIGTERM
        // makes a node exit 0, as its --halt-height does). A halt the heights confirm needs no such wait.
        const confirmed = file ? undefined : this.manual.haltConfirmed(event.status);
        if (!file && !confirmed && (await stop.within(groupSignalSettleMs))) return stop.nodeStopped(event.status);
        manual = file ? undefined : (confirmed ?? this.manual.haltedOnExit(event.status));
        if (!file && !manual) {
          const exit = { ...event.status, pid: node.pid, ranMs: Date.now() - startedAt, described: describeExit(event.status) };
          const next = await afterNodeExit(exit, { ...this.restarts, lastUpgrade: this.lastUpgrade });
          if (stop.signal) return stop.exitCode;
          if (next === 'exit') return exitCodeOf(event.status);
          switched = undefined;
          continue;
        }
        due = file ?? this.manual.targetOf(manual as ManualPlan);
        detected = { how: manual ? 'manual-halted' : 'halted', node: describeExit(event.status) };
      } else {
        manual = event.kind === 'manual-due' ? event.plan : undefined;
        due = event.kind === 'manual-due' ? this.manual.targetOf(event.plan) : event.target;
        detected = { how: manual ? 'manual-due' : 'due' };
      }
      this.manual.nodeStopped();
      // A node still running is stopped by the sequence, right after the upgrade is reported detected.
      const stopNode = event.kind === 'exited' ? undefined : () => (stopping = node.stop({ graceMs: this.config.shutdownGrace, killAtZero: true }));
      try {
        switched = await this.upgrade(due, { delay: true, detectedAt, detected, ...(stopNode ? { stopNode } : {}) });
      } finally {
        // Never leave (or end chainvisor) with the node still stopping.
        await stopping?.catch(() => undefined);
      }
      if (manual) this.follows.manualApplied();
      if (manual) await this.manual.remove([manual]);
      this.lastUpgrade = { name: due.plan.name, at: Date.now() };
      this.warming.switched();
      if (!restartsAfterSwitch(this.config, this.logger)) {
        if (!this.config.unsafeSkipBackup) this.prune();
        return ExitCode.ok;
      }
      if (stop.signal) {
        await abandonSwitch(switched, this.options.tracker);
        return stop.exitCode;
      }
    }
  }

  /** Starts the node through the one launch point (launch.ts); undefined when chainvisor stops first. */
  private async launch(switched: Switched | undefined): Promise<NodeProcess | undefined> {
    this.nodeEnv ??= nodeEnvironment(this.options.tracker?.env);
    const first = !this.started;
    this.started = true;
    const launched = await launchNode(this.launching, { switched, first, args: this.manual.argsFor(this.options.args), env: this.nodeEnv });
    if (launched === undefined) return undefined;
    this.node = launched.node;
    this.detector.nodeStarted(launched.current);
    void this.warming.nodeStarted(launched.current);
    return launched.node;
  }

  /** The upgrade sequence (upgrade/compose.ts), with what the run loop knows: staging under way, the standbys, the node record. */
  private upgrade(due: Due, options: { delay: boolean; detectedAt: number; detected: Detected; stopNode?: () => Promise<unknown> }): Promise<Switched> {
    const { config, layout, tracker } = this.options;
    return runUpgrade(due, {
      ctx: { config, layout, logger: this.logger, signal: this.abort.signal, events: this.events, ...this.downloader },
      ...options,
      ...(this.planWatcher ? { planWatcher: this.planWatcher } : {}),
      ...(this.standbys.preUpgrade ? { preUpgradeStandby: this.standbys.preUpgrade } : {}),
      ...(tracker && config.restartAfterUpgrade ? { tracker } : {}),
      stopping: () => this.stop?.signal !== undefined && this.abort.signal.aborted,
    });
  }

  /** Starts CHAINVISOR_BACKUP_KEEP's removal of old backups, due after an upgrade; awaited before run() returns. It never throws. */
  private prune(): void {
    this.pruning = pruneBackups({ config: this.config, layout: this.options.layout, logger: this.logger });
  }
}
