/**
 * Detection: is an upgrade due? Reads `data/upgrade-info.json` at start-up and after a node's exit,
 * watches it while the node runs (the stay-up halt), judges each plan against `current` (due.ts), and
 * reports what it will not apply once per content: a skipped height, an invalid file. The run loop
 * hears of a plan only through the wake-ups it is given.
 */
import { type Plan, readUpgradeInfo, skipHeights, upgradeInfoError } from '../chain/plan/index.js';
import type { Config } from '../config/index.js';
import { type Current, type Layout, readCurrent, type UpgradeTarget } from '../home/layout/index.js';
import type { Logger } from '../shared/log.js';
import { upgradeDue, type Verdict } from './due.js';
import { type HaltFileWatch, watchHaltFile } from './halt-watch.js';

/** A plan to apply: its target (the folder and binary, named once with the recase rule). */
export type Due = UpgradeTarget;

export type DetectorWake = { kind: 'due'; target: Due } | { kind: 'error'; error: unknown };

export interface DetectorOptions {
  config: Config;
  layout: Layout;
  logger: Logger;
  /** The node's arguments: `--unsafe-skip-upgrades h1 h2 …` are heights never applied. */
  args: readonly string[];
}

export class Detector {
  private readonly options: DetectorOptions;
  private readonly skip: ReadonlySet<number>;
  private readonly reportedSkips = new Set<string>();
  private reportedInvalid: string | undefined;
  private watcher: HaltFileWatch | undefined;
  /** What `current` was when the running node started: plans seen while it runs are judged against it. */
  private running: Current | undefined;

  constructor(options: DetectorOptions) {
    this.options = options;
    this.skip = skipHeights(options.args);
  }

  /** Reads upgrade-info.json now and returns the plan when it must be applied. */
  async dueFromFile(): Promise<Due | undefined> {
    const { layout } = this.options;
    // Both files at once; `current` matters (and its errors surface) only when there is a plan.
    const [read, current] = await Promise.allSettled([readUpgradeInfo(layout.upgradeInfoFile), readCurrent(layout)]);
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
  nodeStarted(current: Current): void {
    this.running = current;
  }

  /**
   * Watches the file while nodes run: a new valid plan is judged against what the running node was
   * started from (nodeStarted; read from disk when no node has run yet) and wakes the loop when due. A
   * plan that cannot be judged (a name that cannot be a folder) wakes it with the error: the node has
   * halted on it and cannot go on. Resolves once file events are live (polling covers until then).
   */
  watch(wake: (event: DetectorWake) => void): Promise<void> {
    const { config, layout, logger } = this.options;
    const onPlan = async (plan: Plan) => {
      try {
        const verdict = this.verdict(plan, this.running ?? (await readCurrent(layout)));
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

  private verdict(plan: Plan, current: Current): Verdict {
    const verdict = upgradeDue(plan, current, { layout: this.options.layout, skipHeights: this.skip });
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
