/**
 * What the steps of the upgrade share (compose.ts numbers them): the context, the look at the binary
 * (`Look`: what is at its path, and whether a step since may have changed it) and what is begun ahead,
 * while the node is still stopping (`Ahead`).
 */
import type { Stats } from 'node:fs';

import { serializePlan } from '../../chain/plan/index.js';
import type { Config } from '../../config/index.js';
import type { Downloader } from '../../download/index.js';
import {
  type Layout,
  planRecordPath,
  type PreparedSwitch,
  prepareSwitch,
  statBinary,
  type TempFile,
  type UpgradeTarget,
  writeTempFile,
} from '../../home/layout/index.js';
import { ExitCode } from '../../shared/errors/index.js';
import type { EventBus } from '../../shared/events/index.js';
import type { Logger } from '../../shared/log.js';

export interface UpgradeContext {
  config: Config;
  layout: Layout;
  logger: Logger;
  /** Aborted when chainvisor is asked to stop; checked between steps. */
  signal: AbortSignal;
  download?: Downloader;
  /** Where the upgrade's events go (detected, applied, failed; backup and download progress); a private bus, logged, by default. */
  events?: EventBus;
  /** Arguments after `<new binary> pre-upgrade`: a rehearsal's `--home <scratch>`; none on the live node. */
  preUpgradeArgs?: readonly string[];
}

/**
 * What the sequence begins at once, while the node is still stopping (each trip through the thread pool
 * here would otherwise be on the path of every switch). Nothing of it is seen before the switch: the
 * record's data sits in a temp file beside the record, the new link beside `current`.
 */
export interface Ahead {
  /** What is at the binary's path. */
  looked: Promise<Stats | undefined>;
  /** The plan record's data, on disk in a temp file: committed once the binary is known to be in place. */
  record: Promise<TempFile>;
  /** The new `current` link: committed (renamed over `current`) as the last step. */
  link: Promise<PreparedSwitch>;
}

export function beginAhead({ plan, dir, binary }: UpgradeTarget, layout: Layout): Ahead {
  const quiet = <T>(promise: Promise<T>): Promise<T> => {
    promise.catch(() => undefined);
    return promise;
  };
  return {
    looked: quiet(statBinary(binary, ExitCode.config)),
    record: quiet(writeTempFile(planRecordPath(layout, dir), serializePlan(plan), 0o644)),
    link: quiet(prepareSwitch(layout, dir)),
  };
}

/** Removes what was begun and not committed (a committed part is left as it is). */
export async function dropAhead(ahead: Ahead): Promise<void> {
  await Promise.allSettled([ahead.record.then((file) => file.abandon()), ahead.link.then((link) => link.abandon())]);
}

/** The look at the binary: what is at its path, and whether a step since may have changed it. */
export interface Look {
  stats: Stats | undefined;
  stale: boolean;
}

/**
 * How old the look at the binary, taken while the node stopped, may be when the sequence goes on: the
 * stop of a staged upgrade takes about a millisecond; one that took longer (a grace period) is followed
 * by a fresh look, so that what runs is what is there after the stop.
 */
const freshLookMs = 100;

/** The node down: the look taken meanwhile, stale when it found no binary or the stop took long. */
export async function nodeDown(ahead: Ahead, nodeStopped: Promise<unknown> | undefined): Promise<Look> {
  let stats: Stats | undefined;
  let lookedAt: number;
  try {
    stats = await ahead.looked;
    lookedAt = Date.now();
  } finally {
    await nodeStopped;
  }
  // An operator may be installing the binary now, or anything may have changed during a grace period.
  return { stats, stale: stats?.isFile() !== true || Date.now() - lookedAt > freshLookMs };
}

/** Looks at the binary again when a step since the last look may have changed it. */
export async function freshen(look: Look, binary: string): Promise<void> {
  if (look.stale) look.stats = await statBinary(binary, ExitCode.config);
  look.stale = false;
}
