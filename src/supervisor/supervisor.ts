/**
 * The supervisor: the run loop and the composition root. It starts the node and waits for a wake-up —
 * the node's exit, a due plan (src/watcher/detector.ts), a manual upgrade height (src/watcher/manual), a stop signal
 * (signals.ts) — and answers each.
 * Why, and the rest of its rules: docs/design/upgrade.md#supervisorsupervisorts.
 */
import { setTimeout as delay } from 'node:timers/promises';

import { addressesFor, type ChainAddresses, createChainReader, type Plan, resolveChainAddresses } from '../chain/index.js';
import type { Config } from '../config/index.js';
import type { Downloader } from '../download/index.js';
import { type Staging, startStaging } from '../download/staging/index.js';
import { createHomeCheck, createSignGuard, createTwinCheck, type NodeTracker } from '../guard/index.js';
import { pruneBackups } from '../home/backup/index.js';
import { type Current, type Layout, planTarget, readCurrent, type UpgradeTarget } from '../home/layout/index.js';
import { ExitCode } from '../shared/errors/index.js';
import { type Detected, logEvents } from '../shared/event-log.js';
import { createEventBus, type EventBus } from '../shared/events/index.js';
import type { Logger } from '../shared/log.js';
import { Detector, type DetectorWake } from '../watcher/detector.js';
import { type ManualPlan, ManualUpgrades } from '../watcher/manual/index.js';
import { type PlanWatcher, startPlanWatcher } from '../watcher/plan-watch.js';
import { type Governance, type RehearsalOutcome, startGovernance } from './governance/index.js';
import { type LaunchContext, type Launched, launchNode } from './launch.js';
import { describeExit, exitCodeOf, type ExitStatus, nodeEnvironment, type NodeProcess } from './node-process.js';
import { type AfterExitContext, afterNodeExit, RestartPolicy } from './restart/index.js';
import { groupSignalSettleMs, StopSignals } from './signals.js';
import { runUpgrade, UpgradeFollows, type UpgradeOptions } from './upgrade/index.js';

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
  /** The rehearsals kept in the home (src/rehearsal, a floor above): a proposal's binary rehearsed before this run shows its outcome. */
  rehearsals?: () => Promise<readonly RehearsalOutcome[]>;
}

type Due = UpgradeTarget; // a plan to apply: its folder and binary, named once with the recase rule
type Wake =
  | DetectorWake<Due>
  | { kind: 'exited'; status: ExitStatus }
  | { kind: 'stop' }
  // Manual upgrades (src/watcher/manual): the halt height must change, or the node reached a queued height.
  | { kind: 'restart'; reason: string }
  | { kind: 'manual-due'; plan: ManualPlan };

export class Supervisor {
  readonly events: EventBus;
  private readonly options: SupervisorOptions;
  private readonly config: Config;
  private readonly logger: Logger;
  private readonly abort = new AbortController();
  private readonly detector: Detector<Due>;
  private readonly manual: ManualUpgrades<Due>;
  /** What a node's exit with no upgrade pending is judged by (src/supervisor/restart). */
  private readonly restarts: Omit<AfterExitContext, 'lastUpgrade'>;
  /** The downloader a test put in place of the real one, if any. */
  private readonly downloader: { download?: Downloader };
  private stop: StopSignals | undefined;
  /** The plan on chain: its watch, and the staging that listens to it (none with CHAINVISOR_PLAN_POLL_INTERVAL=0s). */
  private planOnChain: { planWatcher?: PlanWatcher; staging?: Staging } = {};
  /** The upgrade proposals while they are voted (none with CHAINVISOR_PROPOSAL_POLL_INTERVAL=0s). */
  private governance: Promise<Governance | undefined> = Promise.resolve(undefined);
  private node: NodeProcess | undefined;
  private wake: ((event: Wake) => void) | undefined;
  private lastUpgrade: { name: string; at: number } | undefined;
  private pruning: Promise<unknown> = Promise.resolve();
  /** The launch point's guards and hooks (launch.ts): the home check (#43), the sign guard (#28), the twin check (#32). */
  private readonly launching: LaunchContext;
  /** The network followed after each upgrade (upgrade/follow.ts). */
  private readonly follows: UpgradeFollows;
  private readonly current: () => Promise<Current>;
  /** The node's environment: chainvisor's, with the node record's run id. */
  private readonly nodeEnv: NodeJS.ProcessEnv | undefined;
  /** A node has been started (or refused) in this run: CHAINVISOR_TWIN_WAIT is for the first start only. */
  private started = false;

  constructor(options: SupervisorOptions) {
    this.options = options;
    ({ config: this.config, logger: this.logger } = options);
    this.events = options.events ?? createEventBus();
    // The log lines of the events follow them (each is emitted once, where it happens).
    logEvents(this.events, this.logger);
    const rpc = () => options.addresses?.rpc ?? resolveChainAddresses({ home: this.config.home, args: options.args }).rpc;
    this.follows = new UpgradeFollows({ events: this.events, logger: this.logger, warnMs: this.config.confirmWarn, rpc });
    const { layout, tracker } = options;
    this.nodeEnv = nodeEnvironment(tracker?.env);
    // The plan's folder with the home's recase rule, and `current` as the home reads it: what detection is handed.
    const target = (plan: Plan) => planTarget(layout, plan);
    this.current = () => readCurrent(layout);
    this.detector = new Detector({ config: this.config, layout, logger: this.logger, args: options.args, current: this.current, target });
    const addresses = options.addresses ? { addresses: options.addresses } : {};
    this.manual = new ManualUpgrades({
      config: this.config,
      layout,
      target,
      logger: this.logger,
      events: this.events,
      ...addresses,
    });
    const { restartMax } = this.config;
    this.restarts = { policy: new RestartPolicy(this.config), restartMax, events: this.events, logger: this.logger, signal: this.abort.signal };
    this.downloader = options.download ? { download: options.download } : {};
    this.launching = {
      layout,
      logger: this.logger,
      events: this.events,
      tracker,
      signal: this.abort.signal,
      homeCheck: createHomeCheck({ layout, logger: this.logger, events: this.events }),
      signGuard: createSignGuard({ layout, logger: this.logger, mode: this.config.signGuard }),
      twinCheck: createTwinCheck({ layout, logger: this.logger, events: this.events, config: this.config }),
      // A twin, or a home elsewhere, seen while the node runs stops it, and the error ends the run whatever the restart policy.
      stopUnsafe: (error) => this.wake?.({ kind: 'error', error }),
      started: (launched) => this.adopt(launched),
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
        this.wake?.({ kind: 'stop' });
      },
    });
    this.stop = stop;
    try {
      // An upgrade already due at start-up is applied first, so the old binary never runs past its halt
      // height; its node is started by the loop, once the watches below are up.
      const startup = await this.detector.dueFromFile();
      if (startup) await this.upgrade(startup, { delay: false, detectedAt: Date.now(), detected: { how: 'start-up' } });
      if (stop.signal) return stop.exitCode;
      await this.manual.reconcile(await this.current());
      this.manual.watch({
        restart: (reason) => this.wake?.({ kind: 'restart', reason }),
        due: (plan) => this.wake?.({ kind: 'manual-due', plan }),
      });
      const ready = this.detector.watch((event) => this.wake?.(event));
      if (config.planPollInterval > 0) {
        const addresses = this.options.addresses ? { addresses: this.options.addresses } : {};
        this.planOnChain.staging = startStaging({ config, layout, logger, events: this.events, ...this.downloader });
        this.planOnChain.planWatcher = startPlanWatcher({ config, logger, events: this.events, current: this.current, ...addresses });
      }
      if (config.proposalPollInterval > 0) {
        const addresses = this.options.addresses ?? addressesFor({ config });
        this.governance = startGovernance({
          config,
          layout,
          logger,
          events: this.events,
          client: createChainReader({ addresses }),
          addresses,
          ...(this.options.rehearsals ? { rehearsals: this.options.rehearsals } : {}),
          ...this.downloader,
        }).catch((error: unknown) => {
          logger.warn({ err: error }, 'reading the upgrade proposals could not start: %s', error instanceof Error ? error.message : String(error));
          return undefined;
        });
      }
      // Never hold the node back on file events: polling covers until (or unless) they are live.
      if (!(await Promise.race([ready.then(() => true), delay(5000, false, { ref: false })]))) {
        logger.warn('file events are not ready after 5 s; starting the node and relying on polling meanwhile');
      }
      return await this.loop(startup !== undefined);
    } catch (error) {
      // Asked to stop mid-sequence: whatever ended the sequence (an abort, a cancelled download)
      // is the stop's doing, not a failed upgrade.
      if (stop.signal && this.abort.signal.aborted) return stop.stoppedMidUpgrade(error);
      throw error;
    } finally {
      stop.dispose();
      this.follows.stop();
      this.manual.close();
      await this.pruning;
      await this.detector.close();
      await Promise.all([this.planOnChain.planWatcher?.stop(), this.planOnChain.staging?.stop(), this.governance.then((g) => g?.stop())]);
      this.launching.homeCheck.close();
      await this.launching.signGuard.close();
      await this.launching.twinCheck.close();
    }
  }

  /**
   * Waits for a wake-up of the running node and answers it, until chainvisor exits. `switched`: the
   * start-up applied an upgrade, whose node this starts and follows.
   */
  private async loop(switched: boolean): Promise<number> {
    const stop = this.stop as StopSignals;
    let launched = await this.launch();
    if (launched !== undefined && switched) this.follows.start();
    // Removing old backups (possibly hundreds of GB) never holds back the new node: it starts first.
    if (launched !== undefined && switched && !this.config.unsafeSkipBackup) this.prune();
    for (;;) {
      if (launched === undefined) return stop.exitCode; // asked to stop before the node could start
      const { node } = launched;
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
        launched = await this.launch();
        continue;
      }
      const detectedAt = Date.now();
      let due: Due;
      let detected: Detected;
      let manual: ManualPlan | undefined;
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
          launched = await this.launch();
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
      const stopNode = event.kind === 'exited' ? undefined : () => node.stop({ graceMs: this.config.shutdownGrace, killAtZero: true });
      let stopping: Promise<unknown> | undefined;
      try {
        launched = await this.upgrade(due, {
          delay: true,
          detectedAt,
          detected,
          ...(stopNode ? { stopNode: () => (stopping = stopNode()) } : {}),
          start: { launching: this.launching, args: this.options.args, queue: this.manual, manual, env: this.nodeEnv, follows: this.follows },
        });
      } finally {
        // Never leave (or end chainvisor) with the node still stopping.
        await stopping?.catch(() => undefined);
      }
      this.lastUpgrade = { name: due.plan.name, at: Date.now() };
      if (!this.config.unsafeSkipBackup && (launched !== undefined || !this.config.restartAfterUpgrade)) this.prune();
      if (!this.config.restartAfterUpgrade) return ExitCode.ok;
    }
  }

  /** Starts the node through the one launch point (node/launch.ts); undefined when chainvisor stops first. */
  private async launch(): Promise<Launched | undefined> {
    const first = !this.started;
    this.started = true;
    return launchNode(this.launching, { switched: undefined, first, args: this.manual.argsFor(this.options.args), env: this.nodeEnv });
  }

  /** A node just started (by the loop or the upgrade sequence): the one the stop signals and the detector look at. */
  private adopt(launched: Launched): void {
    this.node = launched.node;
    this.detector.nodeStarted(launched.current);
  }

  /** The upgrade sequence (upgrade/compose.ts), with what the run loop knows: staging under way. */
  private upgrade(due: Due, options: Omit<UpgradeOptions, 'ctx' | 'planWatcher' | 'staging' | 'stopping'>): Promise<Launched | undefined> {
    const { config, layout } = this.options;
    return runUpgrade(due, {
      ctx: { config, layout, logger: this.logger, signal: this.abort.signal, events: this.events, ...this.downloader },
      ...options,
      ...this.planOnChain,
      stopping: () => this.stop?.signal !== undefined && this.abort.signal.aborted,
    });
  }

  /** Starts CHAINVISOR_BACKUP_KEEP's removal of old backups, due after an upgrade; awaited before run() returns. It never throws. */
  private prune(): void {
    this.pruning = pruneBackups({ config: this.config, layout: this.options.layout, logger: this.logger });
  }
}
