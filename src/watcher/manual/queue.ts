/**
 * The manual-upgrade queue as the batch file holds it, re-read on demand: a new content can be made to
 * wait for a second read that agrees, an invalid file keeps the last valid queue in force, and each
 * entry that appears is announced (`upgrade-scheduled`).
 */
import type { EventBus } from '../../shared/events/index.js';
import type { Logger } from '../../shared/log.js';
import { type ManualPlan, type QueueFiles, readQueue, writeQueue } from './file.js';

export interface ManualQueueOptions {
  layout: QueueFiles;
  logger: Logger;
  events: EventBus;
  /** Logs once per distinct `key` (a lasting problem must not flood the log every poll). */
  report(key: string, log: () => void): void;
}

export class ManualQueue {
  private readonly options: ManualQueueOptions;
  private plans: ManualPlan[] = [];
  private text: string | undefined;
  /** A new content seen once, waiting for a second read to agree. */
  private pending: string | undefined;

  constructor(options: ManualQueueOptions) {
    this.options = options;
  }

  /** The queue as last read (sorted by height). */
  get entries(): readonly ManualPlan[] {
    return this.plans;
  }

  /** A new content was seen once and waits for its second read. */
  get settling(): boolean {
    return this.pending !== undefined;
  }

  /**
   * Re-reads the file; returns true when its content changed. An invalid file keeps the last queue.
   * With `settle`, a new content counts only once two reads a poll apart agree: an editor that truncates
   * and rewrites the file must not be seen half-way (an empty queue would restart the node twice).
   */
  async reload(options: { settle: boolean } = { settle: false }): Promise<boolean> {
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
      this.options.report(`invalid:${text}`, () =>
        this.options.logger.error(
          { file: this.options.layout.batchFile, reason: read.reason },
          'ignoring the invalid manual upgrade batch: %s; the last valid queue stays in force',
          read.reason,
        ),
      );
      return false;
    }
    const next = read.status === 'valid' ? read.plans : [];
    for (const plan of next.filter((n) => !this.plans.some((q) => q.name === n.name && q.height === n.height))) {
      const text = `manual upgrade "${plan.name}" queued at height ${plan.height}`;
      this.options.events.emit('upgrade-scheduled', { upgrade: { name: plan.name, height: plan.height }, text, data: { manual: true } });
    }
    this.plans = next;
    return true;
  }

  /** Removes applied (or abandoned) entries from the file. */
  async remove(plans: readonly ManualPlan[]): Promise<void> {
    await this.reload();
    const keep = this.plans.filter((q) => !plans.some((p) => p.name === q.name && p.height === q.height));
    await writeQueue(this.options.layout, keep);
    this.plans = keep;
    this.text = undefined;
    await this.reload();
  }
}
