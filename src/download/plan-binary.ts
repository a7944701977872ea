/**
 * A plan's binary into `upgrades/<dir>`, the one path of the binary step (src/supervisor/upgrade/obtain-binary.ts),
 * of staging before the halt (staging/) and of `prepare-upgrade`: resolve the plan's Info (and the other sources, ./sources/) for this host,
 * download, verify, unpack, and move the result into `upgrades/<dir>` in one rename. On any failure
 * the work folder is removed and `upgrades/<dir>` is as it was, so the next attempt starts clean.
 * `current` is never touched here.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import type { Config } from '../config/index.js';
import { binaryDirPath, installFolder, type Layout, type UpgradeTarget } from '../home/layout/index.js';
import { ChainvisorError, ExitCode, isFsError } from '../shared/errors/index.js';
import type { EventBus } from '../shared/events/index.js';
import type { Logger } from '../shared/log.js';
import { progressOnBus } from '../shared/progress/index.js';
import { isDisagreement, sendDisagreement } from './disagreement.js';
import { DownloadIoError } from './errors.js';
import { fetcherFromConfig, type FetcherOptions } from './fetch.js';
import { fetchAndUnpack, type FetchProgress } from './fetch-unpack.js';
import { hostPlatform } from './platform.js';
import type { UrlPolicy } from './policy.js';
import { binaryCandidates, type Candidate, sourceDeadlineAtHeightMs, tryMirrorAfter, usesSources } from './sources/index.js';
import { createWorkspace } from './workspace.js';

export interface DownloadUpgradeOptions {
  /** The plan from upgrade-info.json and its folder, `upgrades/<name>` (named once, with the recase rule). */
  target: UpgradeTarget;
  config: Config;
  layout: Layout;
  logger: Logger;
  signal?: AbortSignal;
  /** Receives `download-progress` events (throttled) while the binary downloads and unpacks. */
  events?: EventBus;
  /** Tests: backoff delays, a private CA. */
  fetch?: Pick<FetcherOptions, 'backoff' | 'random' | 'tls'>;
  /**
   * The URL policy of every fetch, the sources' documents and every redirect included. Default: the
   * configuration's (CHAINVISOR_ALLOW_INSECURE_HTTP, CHAINVISOR_ALLOW_FILE_URLS); a proposal's binary adds `publicOnly`.
   */
  policy?: UrlPolicy;
  /** Tests: pretend to be another platform (`linux/arm64`). */
  platform?: string;
  /** Tests: the smoke test's time limit (10 s). */
  smokeTimeoutMs?: number;
  /**
   * Fetched ahead of the height (staging, prepare-upgrade): the registry and chain registry get the whole
   * download policy. Otherwise (the halt, default) each has sourceDeadlineAtHeightMs, and a disagreement
   * found is sent on `events` as `checksum-disagreement`.
   */
  ahead?: boolean;
  /** Ahead of the height: fires when the node halts for this plan; the documents still out have sourceDeadlineAtHeightMs from then. */
  halted?: AbortSignal;
}

/** What downloads a plan's binary into `upgrades/<dir>`: downloadUpgradeBinary, or a test's stand-in. */
export type Downloader = (options: DownloadUpgradeOptions) => Promise<{ binary: string; source?: string }>;

/**
 * Resolves the plan's Info for this host, downloads, verifies, extracts and installs it so that
 * binaryPath(layout, dir) is a verified executable; the folder `layout.root/dir` appears in one rename.
 * Throws a ChainvisorError (exitCode ExitCode.upgradeFailed) with a clear message + hint otherwise,
 * leaving nothing that blocks the next attempt. Never touches `current`.
 */
export async function downloadUpgradeBinary(options: DownloadUpgradeOptions): Promise<{ binary: string; source?: string }> {
  const { target, config, layout } = options;
  const { plan, dir, name: dirName } = target;
  const logger = options.logger.child({ upgrade: plan.name });
  const workspace = await guardIo('create a work folder under', layout.root, () =>
    createWorkspace({ root: layout.root, upgradesDir: layout.upgradesDir, dirName, logger }),
  );
  // One fetcher for the sources and the download: the sources' URLs are weighed by its policy (fetcher.policy).
  const fetcher = fetcherFromConfig(config, logger, { ...options.fetch, ...(options.policy === undefined ? {} : { policy: options.policy }) });
  try {
    const signalOption = options.signal ? { signal: options.signal } : {};
    const upgrade = { name: plan.name, height: plan.height };
    const candidates = await binaryCandidates({
      plan: { name: plan.name, height: plan.height, info: plan.info },
      config,
      platform: options.platform ?? hostPlatform(),
      fetcher,
      workDir: workspace.path,
      logger,
      ...signalOption,
      ...lateness(options),
    }).catch((error: unknown) => {
      // Staging sends it itself, once per plan; at the height it is found here first.
      if (!options.ahead && options.events && isDisagreement(error)) sendDisagreement(options.events, upgrade, error, { blocksLeft: 0, near: true });
      throw error;
    });
    const fetchFrom = async (candidate: Candidate, workDir: string) => {
      const { download: source, platform } = candidate;
      const progress = options.events ? progressOnBus({ events: options.events, event: 'download-progress', what: source.shown, upgrade }) : undefined;
      let extracting = false;
      const extraction = options.events ? progressOnBus({ events: options.events, event: 'extract-progress', what: source.shown, upgrade }) : undefined;
      const reached: FetchProgress = {};
      return fetchAndUnpack({
        progress: reached,
        source,
        platform,
        name: layout.name,
        workDir,
        fetcher,
        limits: { maxBytes: config.extractMaxBytes, maxEntries: config.extractMaxEntries },
        logger,
        smokeTest: config.smokeTest ? (options.smokeTimeoutMs === undefined ? {} : { timeoutMs: options.smokeTimeoutMs }) : false,
        ...signalOption,
        ...(progress ? { onProgress: progress.update } : {}),
        ...(extraction
          ? {
              onExtractProgress: (bytes: number, total: number | undefined) => {
                extracting = true;
                extraction.update(bytes, total);
              },
            }
          : {}),
      }).then(
        (done) => {
          progress?.finish();
          // Only the archives whose extractor counts its bytes (zip) report it.
          if (extracting) extraction?.finish();
          return done;
        },
        (error: unknown) => {
          // A cancelled download (chainvisor stopping) or a failed one must not read "finished"; one
          // that arrived whole (and then failed its checksum or its unpacking) did finish.
          const ended = (complete: boolean) => (complete ? 'complete' : options.signal?.aborted ? 'cancelled' : 'failed');
          progress?.finish(ended(reached.bytes !== undefined));
          if (extracting) extraction?.finish(ended(reached.unpacked !== undefined));
          throw error;
        },
      );
    };
    // The first URL, then its mirrors (other sources' URLs with the same checksum) when its download fails.
    let fetched: Awaited<ReturnType<typeof fetchFrom>> | undefined;
    let from = candidates[0] as Candidate;
    for (const [i, candidate] of candidates.entries()) {
      from = candidate;
      const workDir = i === 0 ? workspace.path : path.join(workspace.path, `mirror-${i}`);
      if (i > 0) await guardIo('create a work folder under', workDir, () => fs.mkdir(workDir));
      try {
        fetched = await fetchFrom(candidate, workDir);
        break;
      } catch (error) {
        const next = candidates[i + 1];
        if (next === undefined || options.signal?.aborted || !tryMirrorAfter(error)) throw error;
        logger.warn(
          { source: candidate.source, mirror: next.source, url: next.download.shown, reason: error instanceof Error ? error.message : String(error) },
          'the download from %s failed; trying the same binary (same checksum) from %s: %s',
          candidate.source,
          next.source,
          next.download.shown,
        );
      }
    }
    const tree = (fetched as NonNullable<typeof fetched>).tree;
    const sourced = usesSources(config) ? { source: from.source } : {};
    const folder = binaryDirPath(layout, dir);
    await guardIo('install the upgrade folder', folder, () => installFolder({ staged: tree, target: folder, logger }));
    logger.info({ binary: target.binary, ...sourced }, 'upgrade binary installed');
    return { binary: target.binary, ...sourced };
  } catch (error) {
    throw asUpgradeError(error);
  } finally {
    await fetcher.close();
    // A failure to clean up must not hide why the attempt failed; the next attempt retries it.
    await workspace.remove().catch((error: unknown) => logger.warn({ folder: workspace.path, err: error }, 'could not remove the work folder'));
  }
}

/** At the height the registry's few seconds run from the start; ahead of it, from the halt if one comes. */
function lateness(options: DownloadUpgradeOptions): { lateAfterMs?: number; lateFrom?: AbortSignal } {
  if (!options.ahead) return { lateAfterMs: sourceDeadlineAtHeightMs };
  return options.halted === undefined ? {} : { lateAfterMs: sourceDeadlineAtHeightMs, lateFrom: options.halted };
}

async function guardIo<T>(action: string, file: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isFsError(error)) throw new DownloadIoError(action, file, error);
    throw error;
  }
}

/** Every failure leaves here as a ChainvisorError with exit code 79. */
function asUpgradeError(error: unknown): ChainvisorError {
  if (error instanceof ChainvisorError) {
    if (error.exitCode === ExitCode.upgradeFailed) return error;
    return new ChainvisorError(error.code, error.message, { hint: error.hint ?? '', cause: error, exitCode: ExitCode.upgradeFailed });
  }
  if (isFsError(error)) return new DownloadIoError('download or install into', error.path ?? path.sep, error);
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return new ChainvisorError('CHAINVISOR_DOWNLOAD_UNEXPECTED', `unexpected error while installing the upgrade binary: ${detail}`, {
    hint: 'this is a bug in chainvisor; please report it with this output. Meanwhile install the binary by hand (chainvisor add-upgrade)',
    cause: error,
  });
}
