/**
 * Staging ahead of the halt: the binary of a scheduled plan is staged in the background as soon as it
 * is scheduled (DAEMON_ALLOW_DOWNLOAD_BINARIES=true), retrying with backoff until the height. A plan
 * cancelled on chain stops its staging and keeps its binary, marked not planned; a changed Info
 * restages; a binary still not in place
 * CHAINVISOR_STAGE_WARN_BLOCKS before the height is a loud warning. What the plan watch says on the bus
 * reaches it through listen.ts; it never reads the chain itself.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import type { Plan, ScheduledPlan } from '../../chain/index.js';
import type { Config } from '../../config/index.js';
import { binaryPath, isFile, type Layout, planDir } from '../../home/layout/index.js';
import { backoffMs } from '../../shared/backoff.js';
import type { EventBus } from '../../shared/events/index.js';
import type { Logger } from '../../shared/log.js';
import { isDisagreement, sendDisagreement } from '../disagreement.js';
import type { Downloader } from '../index.js';
import { markNotPlanned, stagePlan } from './stage.js';

export interface StagerOptions {
  config: Config;
  layout: Layout;
  /** Staging speaks as part of the plan watch (its `component`). */
  logger: Logger;
  events: EventBus;
  /** The chain's height as last read (undefined before the first reading). */
  height: () => number | undefined;
  download?: Downloader;
  /** Tests: backoff between failed staging attempts (default 5 s doubling to 60 s). */
  retryDelayMs?: (attempt: number) => number;
}

export interface Stager {
  /**
   * A plan cancelled or replaced on chain, not applied: the staging under way stops, and the binary
   * chainvisor staged for it stays, marked not planned (a staging begun meanwhile waits for the mark).
   */
  cancelled(plan: Pick<ScheduledPlan, 'name'>): Promise<void>;
  /** A plan scheduled, or changed, on chain: staged unless it is already (restaged when its Info changed). */
  scheduled(plan: ScheduledPlan): void;
  /** After each reading while a plan is scheduled: warns when its binary is still not in place near the height. */
  checkDeadline(plan: ScheduledPlan): Promise<void>;
  /** At the halt: waits for a staging of this plan still under way, and stages it no more (it is applied next). */
  settle(plan: Plan): Promise<void>;
  /** The staging under way stops. */
  abort(): void;
  /** Resolves when the staging under way, if any, has ended. */
  idle(): Promise<void>;
}

interface Job {
  plan: ScheduledPlan;
  abort: AbortController;
  done: Promise<void>;
  staged: boolean;
  lastError: string | undefined;
  failedReported: boolean;
  disagreementReported: boolean;
  /** Ends the wait between failed attempts: chainvisor stopping, or the node halted for this plan. */
  pause: AbortController;
  /** The node halted for this plan: an attempt still asking the sources asks them as at the height. */
  halted: AbortController;
}

const defaultRetryDelay = (attempt: number) => backoffMs({ attempt, baseMs: 5000, maxMs: 60_000 });

const upgradeOf = (p: ScheduledPlan) => ({ name: p.name, height: p.height });

export function createStager(options: StagerOptions): Stager {
  const { config, layout, logger, events, height } = options;
  const retryDelay = options.retryDelayMs ?? defaultRetryDelay;
  let job: Job | undefined;
  const settled = new Set<string>();
  let warnedFor: string | undefined;
  // A cancelled plan's binary being marked not planned: a staging begun meanwhile starts once it is.
  let marking: Promise<void> = Promise.resolve();

  function startJob(target: ScheduledPlan): Job {
    const abort = new AbortController();
    const pause = new AbortController();
    abort.signal.addEventListener('abort', () => pause.abort(), { once: true });
    const state: Job = {
      pause,
      halted: new AbortController(),
      plan: target,
      abort,
      done: Promise.resolve(),
      staged: false,
      lastError: undefined,
      failedReported: false,
      disagreementReported: false,
    };
    state.done = (async () => {
      await marking;
      for (let attempt = 1; !abort.signal.aborted; attempt++) {
        const started = Date.now();
        try {
          const result = await stagePlan({
            plan: target,
            config,
            layout,
            logger,
            signal: abort.signal,
            events,
            halted: state.halted.signal,
            ...(options.download ? { download: options.download } : {}),
          });
          state.staged = true;
          const text =
            result.status === 'downloaded'
              ? `binary for upgrade "${target.name}" staged at ${result.binary} in ${((Date.now() - started) / 1000).toFixed(1)} s, before the halt`
              : `binary for upgrade "${target.name}" already in place at ${result.binary} (${result.status === 'installed' ? 'installed by the operator' : 'staged earlier'})`;
          const source = result.source === undefined ? {} : { source: result.source };
          events.emit('binary-staged', {
            upgrade: upgradeOf(target),
            text: result.source === undefined ? text : `${text}; from ${result.source}`,
            data: { binary: result.binary, dir: result.dir, status: result.status, ms: Date.now() - started, ...source },
          });
          return;
        } catch (error) {
          if (abort.signal.aborted) return;
          state.lastError = error instanceof Error ? error.message : String(error);
          const wait = retryDelay(attempt);
          const text = `staging the binary for upgrade "${target.name}" failed (attempt ${attempt}): ${state.lastError}; retrying in ${Math.round(wait / 1000)} s`;
          if (isDisagreement(error) && !state.disagreementReported) {
            // Found days ahead, not at the height: said once per plan, louder as the height nears (issue #34).
            state.disagreementReported = true;
            const now = height();
            const blocksLeft = now === undefined ? undefined : target.height - now;
            sendDisagreement(events, upgradeOf(target), error, { blocksLeft, near: blocksLeft !== undefined && blocksLeft <= config.stageWarnBlocks });
          }
          if (!state.failedReported) {
            state.failedReported = true;
            events.emit('staging-failed', { upgrade: upgradeOf(target), text, data: { attempt, reason: state.lastError } });
          } else {
            // Each retry is logged; only the first failure is an event (its line is the bus's log listener's).
            logger.warn({ event: 'staging-failed', upgrade: target.name, height: target.height, attempt }, text);
          }
          // At the halt the node is down and no height comes: the halt itself downloads (or says why it cannot).
          if (settled.has(target.name)) return;
          try {
            await sleep(wait, undefined, { signal: state.pause.signal });
          } catch {
            return;
          }
          // Past the height the halt itself downloads (or reports why it cannot).
          const now = height();
          if (now !== undefined && now >= target.height) return;
        }
      }
    })();
    return state;
  }

  return {
    cancelled(plan) {
      const stopped = job;
      stopped?.abort.abort();
      job = undefined;
      marking = (async () => {
        await marking;
        // A download that ends as it is stopped still writes its record: the mark comes after it.
        await stopped?.done;
        const marked = await markNotPlanned({ plan, layout }).catch((error: unknown) => {
          logger.warn({ err: error, upgrade: plan.name }, 'could not mark the binary staged for a cancelled plan as not planned');
          return false;
        });
        if (marked) logger.info({ upgrade: plan.name, dir: planDir(layout, plan.name) }, 'the binary staged for it stays on disk, marked not planned');
      })();
      return marking;
    },
    scheduled(plan) {
      warnedFor = undefined;
      // Another plan's job is over: that plan was cancelled, or applied at a halt.
      if (job !== undefined && (job.plan.name !== plan.name || job.plan.info !== plan.info)) {
        job.abort.abort();
        job = undefined;
      }
      if (job !== undefined) job.plan = plan;
      else if (config.allowDownloadBinaries && !settled.has(plan.name)) job = startJob(plan);
    },
    /** Loud warning when the binary is still not in place CHAINVISOR_STAGE_WARN_BLOCKS before the height. */
    async checkDeadline(target) {
      const now = height();
      if (now === undefined) return;
      const left = target.height - now;
      if (left > config.stageWarnBlocks || left < 0) return;
      if (job?.staged || (await isFile(binaryPath(layout, planDir(layout, target.name))).catch(() => false))) return;
      const failing = !config.allowDownloadBinaries || job?.lastError !== undefined;
      // A download still under way is worth a warning; a failing or impossible one is an error, said once.
      const key = `${target.name}@${target.height}:${failing ? 'failing' : 'under way'}`;
      if (warnedFor === key || warnedFor === `${target.name}@${target.height}:failing`) return;
      warnedFor = key;
      const why = !config.allowDownloadBinaries
        ? `it is not installed and DAEMON_ALLOW_DOWNLOAD_BINARIES is false: run 'chainvisor add-upgrade ${target.name} <path-to-binary>' now`
        : job?.lastError !== undefined
          ? `staging keeps failing (${job.lastError}); fix the Info's URL or install it with 'chainvisor add-upgrade ${target.name} <path-to-binary>'`
          : 'the download is still under way';
      const text = `upgrade "${target.name}" is ${left} blocks away (height ${target.height}) and its binary is NOT staged: ${why}`;
      if (!failing) {
        logger.warn({ upgrade: target.name, height: target.height, blocksLeft: left }, text);
        return;
      }
      events.emit('staging-failed', { upgrade: upgradeOf(target), text, data: { blocksLeft: left, reason: job?.lastError ?? 'not installed' } });
    },
    async settle(halted) {
      settled.add(halted.name);
      if (job !== undefined && job.plan.name === halted.name) {
        if (!job.staged) logger.info({ upgrade: halted.name }, 'the node halted while its binary was still being staged; waiting for that download');
        // A staging that keeps failing waits for its next attempt; the halt tries now instead. One still
        // asking a slow registry gives it the height's few seconds, not the download policy's minutes.
        job.pause.abort();
        job.halted.abort();
        const settling = job;
        await settling.done;
        // Applied next: a later plan is not taken for it (the plan watch says nothing of a plan applied).
        if (job === settling) job = undefined;
      }
    },
    abort() {
      job?.abort.abort();
    },
    async idle() {
      await Promise.all([job?.done, marking]);
    },
  };
}
