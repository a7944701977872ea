/**
 * Staging under `chainvisor run`: listens on the bus to what the plan watch (src/watcher/plan-watch.ts)
 * says it read — a plan scheduled, changed or moved, cancelled, the chain's height — and drives the stager
 * (stager.ts). The supervisor starts it beside the plan watch; the upgrade sequence settles it at the halt.
 */
import type { Plan, ScheduledPlan } from '../../chain/index.js';
import type { Config } from '../../config/index.js';
import type { Layout } from '../../home/layout/index.js';
import type { EventBus, SupervisorEvent } from '../../shared/events/index.js';
import type { Logger } from '../../shared/log.js';
import type { Downloader } from '../index.js';
import { createStager } from './stager.js';

export interface StagingOptions {
  config: Config;
  layout: Layout;
  logger: Logger;
  events: EventBus;
  download?: Downloader;
  /** Tests: backoff between failed staging attempts (default 5 s doubling to 60 s). */
  retryDelayMs?: (attempt: number) => number;
}

export interface Staging {
  /** At the halt: waits for a staging of this plan still under way, and stages it no more. */
  settle(plan: Plan): Promise<void>;
  /** Stops listening and ends the staging under way. */
  stop(): Promise<void>;
}

/** The plan a plan watch's upgrade-scheduled or upgrade-rescheduled names (a manual upgrade's has no Info, and is not staged). */
function scheduledPlan(event: SupervisorEvent): ScheduledPlan | undefined {
  const info = event.data?.info;
  if (event.upgrade === undefined || event.data?.manual === true || typeof info !== 'string') return undefined;
  return { name: event.upgrade.name, height: event.upgrade.height, info };
}

export function startStaging(options: StagingOptions): Staging {
  const { events } = options;
  const logger = options.logger.child({ component: 'plan-watcher' });
  let height: number | undefined;
  // The plan on chain as last said (none once cancelled, or settled at the halt).
  let plan: ScheduledPlan | undefined;
  let checking: Promise<void> = Promise.resolve();
  const stager = createStager({
    ...options,
    logger,
    height: () => height,
  });
  // One check at a time, each a step later than the height that asks for it: the plan watch emits a
  // reading's events in one go (the height first), so the plan checked is the one on chain after them.
  const check = () => {
    checking = checking
      .then(() => (plan === undefined ? undefined : stager.checkDeadline(plan)))
      .catch((error: unknown) => logger.warn({ err: error }, 'checking the staged binary near the height failed'));
  };

  const off = events.on((event) => {
    if (event.event === 'chain-height' && typeof event.data?.height === 'number') {
      height = event.data.height;
      check();
    } else if (event.event === 'upgrade-cancelled' && event.upgrade !== undefined) {
      if (plan?.name === event.upgrade.name) plan = undefined;
      void stager.cancelled(event.upgrade);
    } else if (event.event === 'upgrade-scheduled' || event.event === 'upgrade-rescheduled') {
      const scheduled = scheduledPlan(event);
      if (scheduled === undefined) return;
      plan = scheduled;
      stager.scheduled(scheduled);
    }
  });

  return {
    async settle(halted) {
      if (plan?.name === halted.name) plan = undefined;
      await stager.settle(halted);
    },
    async stop() {
      off();
      stager.abort();
      await stager.idle();
      await checking;
    },
  };
}
