/**
 * Detection: is an upgrade due? Reads `data/upgrade-info.json` at start-up and after a node's exit,
 * watches it while the node runs (the stay-up halt), judges each plan against `current` (due.ts), and
 * reports what it will not apply once per content: a skipped height, an invalid file. The run loop
 * hears of a plan only through the wake-ups it is given.
 */
import { type Plan, readUpgradeInfo, skipHeights, upgradeInfoError } from '../chain/index.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../shared/log.js';
import { type Running, type Target, upgradeDue, type Verdict } from './due.js';
import { type HaltFileWatch, watchHaltFile } from './halt-watch.js';

/** A plan to apply (`T`): its target, the folder and binary named once with the recase rule. */
export type DetectorWake<T extends Target> = { kind: 'due'; target: T } | { kind: 'error'; error: unknown };

export interface DetectorOptions<T extends Target> {
  config: Config;
  /** The home's halt file and the home itself (home/layout's `Layout` has both). */
  layout: { home: string; upgradeInfoFile: string };
  logger: Logger;
  /** The node's arguments: `--unsafe-skip-upgrades h1 h2 …` are heights never applied. */
  args: readonly string[];
  /** Reads what `current` runs from now (home/layout's readCurrent). */
  current: () => Promise<Running>;
  /** A plan's target (home/layout's planTarget with the home's recase rule). */
  target: (plan: Plan) => T;
}

export class Detector<T extends Target> {
  private readonly options: DetectorOptions<T>;
  private readonly skip: ReadonlySet<number>;
  private readonly reportedSkips = new Set<string>();
  private reportedInvalid: string | undefined;
  private watcher: HaltFileWatch | undefined;
  /** What `current` was when the running node started: plans seen while it runs are judged against it. */
  private running: Running | undefined;

  constructor(options: DetectorOptions<T>) {
    this.options = options;
    this.skip = skipHeights(options.args);
  }

  /** Reads upgrade-info.json now and returns the plan when it must be applied. */
  async dueFromFile(): Promise<T | undefined> {
    const { layout } = this.options;
    // Both files at once; `current` matters (and its errors surface) only when there is a plan.
    const [read, current] = await Promise.allSettled([readUpgradeInfo(layout.upgradeInfoFile), this.options.current()]);
    if (read.status === 'rejected') throw read.reason;
    if (read.value.status === 'missing') return undefined;
    if (read.value.status === 'invalid') {
      this.reportInvalid(read.value.reason, read.value.text);
      return undefined;
    }
    if (current.status === 'rejected') throw current.reason;
    const verdict = this.verdict(read.value.plan, current.value);
    return verdict.due ? verdict.target : undefined;
  }

  /** The run loop tells what `current` the node it just started runs from (a value, not a call back). */
  nodeStarted(current: Running): void {
    this.running = current;
  }

  /**
   * Watches the file while nodes run: a new valid plan is judged against what the running node was
   * started from (nodeStarted; read from disk when no node has run yet) and wakes the loop when due. A
   * plan that cannot be judged (a name that cannot be a folder) wakes it with the error: the node has
   * halted on it and cannot go on. Resolves once file events are live (polling covers until then).
   */
  watch(wake: (event: DetectorWake<T>) => void): Promise<void> {
    const { config, layout, logger } = this.options;
    const onPlan = async (plan: Plan) => {
      try {
        const verdict = this.verdict(plan, this.running ?? (await this.options.current()));
        if (verdict.due) wake({ kind: 'due', target: verdict.target });
      } catch (error) {
        wake({ kind: 'error', error });
      }
    };
    this.watcher = watchHaltFile({
      home: layout.home,
      file: layout.upgradeInfoFile,
      mode: config.watch === 'poll' ? 'poll' : 'auto',
      pollIntervalMs: config.pollInterval,
      logger,
      onPlan: (plan) => void onPlan(plan),
      onInvalid: (reason, text) => this.reportInvalid(reason, text),
    });
    return this.watcher.ready;
  }

  async close(): Promise<void> {
    await this.watcher?.close();
  }

  private verdict(plan: Plan, current: Running): Verdict<T> {
    const verdict = upgradeDue(plan, current, { target: this.options.target, skipHeights: this.skip });
    if (!verdict.due) {
      const key = `${plan.name}@${plan.height}`;
      if (verdict.skipped && !this.reportedSkips.has(key)) {
        this.reportedSkips.add(key);
        this.options.logger.warn({ upgrade: plan.name, height: plan.height }, 'upgrade skipped: %s; not switching binaries', verdict.why);
      } else {
        this.options.logger.debug({ upgrade: plan.name }, 'not an upgrade to apply: %s', verdict.why);
      }
    }
    return verdict;
  }

  /** An invalid upgrade-info.json is reported once per content, whichever path read it. */
  private reportInvalid(reason: string, text: string): void {
    const key = `${reason}:${text}`;
    if (this.reportedInvalid === key) return;
    this.reportedInvalid = key;
    const file = this.options.layout.upgradeInfoFile;
    const { code, hint } = upgradeInfoError(file, reason);
    this.options.logger.error(
      { file, reason, code, hint },
      'ignoring invalid upgrade-info.json: %s; supervision goes on — the node (or whoever wrote the file) must write a valid plan',
      reason,
    );
  }
}
