/**
 * When the switch is rehearsed ahead (warm.ts): only when an upgrade is coming, never at rest.
 *
 *   - a binary is in place for an upgrade not yet applied (`upgrades/<dir>/bin/<name>` with no plan
 *     record beside it, and not `current`), seen at a node's start: once per `run`, and not after a
 *     switch (the switch itself has run the code);
 *   - a plan is scheduled (on chain, or a manual upgrade): once per plan;
 *   - the height of a plan scheduled on chain is CHAINVISOR_STAGE_WARN_BLOCKS away or nearer: once per
 *     plan, again, because V8 drops the compiled code of functions left unused for long (a plan
 *     scheduled days ahead would otherwise have been warmed for nothing).
 *
 * A rehearsal begins a moment after the node's start (out of the way of its spawn) and never while a
 * switch is under way: the run loop pauses it at every wake-up (the rehearsal under way is given up, its
 * scratch removed, and it is due again at the next start).
 */
import fs from 'node:fs/promises';

import type { Config } from '../config/index.js';
import { binaryPath, type Current, type Layout, planRecordPath, upgradeBinaryDir } from '../home/layout/index.js';
import type { EventBus } from '../shared/events/index.js';
import type { Logger } from '../shared/log.js';
import { warmSwitch } from './warm.js';

/** How long after a node's start a due rehearsal begins. */
const afterStartMs = 20;

export interface WarmingOptions {
  config: Config;
  layout: Layout;
  logger: Logger;
  events: EventBus;
  /** Replaces the rehearsal (tests). */
  warm?: (signal: AbortSignal) => Promise<boolean>;
}

export class SwitchWarming {
  private readonly options: WarmingOptions;
  /** The reasons already answered (`staged`, `scheduled:<name>`, `near:<name>`): each warms once. */
  private readonly done = new Set<string>();
  private readonly pending = new Set<string>();
  private plan: { name: string; height: number } | undefined;
  /** A node runs and no switch is under way. */
  private running = false;
  private timer: { handle: NodeJS.Timeout; fired: Promise<void>; fire: () => void } | undefined;
  private current: { abort: AbortController; done: Promise<void> } | undefined;
  private readonly off: () => void;
  private closed = false;

  constructor(options: WarmingOptions) {
    this.options = options;
    const { stageWarnBlocks } = options.config;
    this.off = options.events.on((event) => {
      if (event.event === 'upgrade-scheduled' && event.upgrade) {
        this.plan = event.upgrade;
        this.due(`scheduled:${event.upgrade.name}`);
      } else if (event.event === 'plan-cancelled' && event.upgrade?.name === this.plan?.name) {
        this.plan = undefined;
      } else if (event.event === 'chain-height' && typeof event.data?.height === 'number' && this.plan) {
        if (this.plan.height - event.data.height <= stageWarnBlocks) this.due(`near:${this.plan.name}`);
      }
    });
  }

  /**
   * A node has started from `current`: looks for a binary waiting for its upgrade. Resolves once that
   * look, and any rehearsal due, are over (the run loop does not wait for it).
   */
  async nodeStarted(current: Current): Promise<void> {
    this.running = true;
    this.schedule();
    if (!this.done.has('staged') && !this.pending.has('staged') && (await upgradeStaged(this.options.layout, current).catch(() => false))) {
      this.due('staged');
    }
    await this.settled();
  }

  /** An upgrade was applied in this `run`: its code is warm, a staged binary calls for no rehearsal. */
  switched(): void {
    this.done.add('staged');
    this.pending.delete('staged');
  }

  /** A wake-up of the run loop (a switch may follow): nothing begins, and the rehearsal under way is given up. */
  pause(): void {
    this.running = false;
    this.unschedule();
    this.current?.abort.abort();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.off();
    this.pause();
    await this.current?.done;
  }

  private due(reason: string): void {
    if (this.done.has(reason)) return;
    this.pending.add(reason);
    this.schedule();
  }

  private schedule(): void {
    if (!this.running || this.closed || this.pending.size === 0 || this.current || this.timer) return;
    let fire = () => undefined as void;
    const fired = new Promise<void>((resolve) => (fire = resolve));
    const handle = setTimeout(() => {
      this.unschedule();
      this.start();
    }, afterStartMs);
    this.timer = { handle, fired, fire };
  }

  private unschedule(): void {
    if (!this.timer) return;
    clearTimeout(this.timer.handle);
    this.timer.fire();
    this.timer = undefined;
  }

  private start(): void {
    if (!this.running || this.closed || this.pending.size === 0 || this.current) return;
    const reasons = [...this.pending];
    this.pending.clear();
    const abort = new AbortController();
    const warm = this.options.warm ?? ((signal: AbortSignal) => warmSwitch(this.options.config, signal));
    const done = warm(abort.signal)
      .catch(() => false)
      .then((ok) => {
        this.current = undefined;
        // Given up for a wake-up: due again at the next start. A failure is not retried.
        for (const reason of reasons) (abort.signal.aborted && !ok ? this.pending : this.done).add(reason);
        this.options.logger.debug({ reasons, ok }, ok ? 'switch rehearsed ahead on a scratch home' : 'switch not rehearsed ahead');
        this.schedule();
      })
      .catch(() => undefined); // only a speed-up: never a reason to disturb the run
    this.current = { abort, done };
  }

  /** Resolves once no rehearsal is due to begin nor under way. */
  async settled(): Promise<void> {
    for (let waiting = this.timer?.fired ?? this.current?.done; waiting; waiting = this.timer?.fired ?? this.current?.done) await waiting;
  }
}

/** A binary in place for an upgrade not yet applied: not `current`, and no plan record beside it (the switch writes one). */
export async function upgradeStaged(layout: Layout, current: Current): Promise<boolean> {
  const entries = await fs.readdir(layout.upgradesDir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const dir = upgradeBinaryDir(entry.name);
    if (!entry.isDirectory() || dir === current.dir) continue;
    const [binary, recorded] = await Promise.all([
      fs.stat(binaryPath(layout, dir)).catch(() => undefined),
      fs.lstat(planRecordPath(layout, dir)).then(
        () => true,
        () => false,
      ),
    ]);
    if (binary?.isFile() && !recorded) return true;
  }
  return false;
}
