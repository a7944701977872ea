/**
 * What to fetch for a plan, and in which order (issue #34): the one call the binary step and
 * `check-plan` make. With CHAINVISOR_UPGRADE_SOURCES=plan (the default) it is today's path, unchanged:
 * the plan's Info, this host's entry, its URL, and their errors. With more sources, each is asked once
 * (all at once: one round trip each, per plan), a source that cannot answer is a warning, and the
 * answers are weighed (./agreement.ts) into the URL and its mirrors. At the height the documents
 * have `lateAfterMs` to answer: a slow optional source must not hold a switch the others can make.
 */
import { type Config, upgradeSourceList, type UpgradeSourceName } from '../../config/index.js';
import type { Logger } from '../../shared/log.js';
import { formatChecksum } from '../../verify/index.js';
import type { Fetcher } from '../fetch.js';
import { pickBinary, resolveInfo } from '../info.js';
import { parseSource } from '../source.js';
import { type Candidate, weighAnswers, type Weighed } from './agreement.js';
import { askSource, type SourceAnswer } from './ask.js';

export type SourceSettings = Pick<Config, 'upgradeSources' | 'registryUrl' | 'chainRegistryUrl' | 'checksumQuorum' | 'downloadMustHaveChecksum'>;

export interface ResolveOptions {
  plan: { name: string; height: number | undefined; info: string };
  config: SourceSettings;
  platform: string;
  fetcher: Fetcher;
  /** An empty folder for the documents while they are read. */
  workDir: string;
  logger: Logger;
  signal?: AbortSignal;
  /** At the height (sourceDeadlineAtHeightMs): a registry or chain registry not answered by then is late; ahead of it, none. */
  lateAfterMs?: number;
  /** While staging: the node halted; `lateAfterMs` runs from then. */
  lateFrom?: AbortSignal;
}

/** How long a document source has at the height (docs/sources.md#at-the-height); staging keeps the download policy. */
export const sourceDeadlineAtHeightMs = 5000;

export interface Resolution {
  sources: UpgradeSourceName[];
  answers: SourceAnswer[];
  weighed: Weighed;
}

/** True when the settings ask more than the plan: only then is anything new logged, recorded or shown. */
export function usesSources(config: Pick<Config, 'upgradeSources'>): boolean {
  const names = upgradeSourceList(config.upgradeSources);
  return !(names.length === 1 && names[0] === 'plan');
}

/** Every configured source asked, and the answers weighed; the problem, if any, is in `weighed.problem`. */
export async function resolveSources(options: ResolveOptions): Promise<Resolution> {
  const { config, plan } = options;
  const sources = upgradeSourceList(config.upgradeSources);
  const answers = await Promise.all(
    sources.map((source) =>
      askSource({
        source,
        name: plan.name,
        height: plan.height,
        info: plan.info,
        registryUrl: config.registryUrl,
        chainRegistryUrl: config.chainRegistryUrl,
        mustHaveChecksum: config.downloadMustHaveChecksum,
        platform: options.platform,
        fetcher: options.fetcher,
        workDir: options.workDir,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.lateAfterMs === undefined ? {} : { lateAfterMs: options.lateAfterMs }),
        ...(options.lateFrom === undefined ? {} : { lateFrom: options.lateFrom }),
      }),
    ),
  );
  const weighed = weighAnswers(answers, {
    upgrade: plan.name,
    platform: options.platform,
    quorum: config.checksumQuorum,
    mustHaveChecksum: config.downloadMustHaveChecksum,
    policy: options.fetcher.policy,
  });
  return { sources, answers, weighed };
}

/**
 * The URLs to try for the host's binary, first the one to use, then its mirrors; throws the coded error
 * that stops the upgrade (no URL, a disagreement, a quorum not met, a checksum required and missing).
 */
export async function binaryCandidates(options: ResolveOptions): Promise<Candidate[]> {
  const { config, plan, logger } = options;
  if (!usesSources(config)) {
    // Today's path, byte for byte: the plan's own errors are the upgrade's.
    const signal = options.signal ? { signal: options.signal } : {};
    const info = await resolveInfo(plan.info, {
      mustHaveChecksum: config.downloadMustHaveChecksum,
      fetcher: options.fetcher,
      workDir: options.workDir,
      ...signal,
    });
    const picked = pickBinary(info, options.platform);
    const download = parseSource(picked.url, { mustHaveChecksum: config.downloadMustHaveChecksum, what: `${picked.platform} binary` });
    return [{ source: 'plan', platform: picked.platform, download }];
  }
  const { answers, weighed } = await resolveSources(options);
  for (const answer of answers) {
    if (answer.state === 'unusable' || answer.state === 'height-differs')
      logger.warn(
        { source: answer.source, from: answer.origin, reason: answer.detail },
        'upgrade source %s (%s) is not used for upgrade "%s": %s; the other sources are asked',
        answer.source,
        answer.origin,
        plan.name,
        answer.detail,
      );
    else if (answer.state === 'none') logger.info({ source: answer.source, reason: answer.detail }, 'upgrade source %s: %s', answer.source, answer.detail);
  }
  for (const [i, refusal] of weighed.refused.entries()) {
    const source = answers[i]?.source;
    if (refusal !== undefined)
      logger.warn({ source, url: refusal.url }, 'the URL upgrade source %s gives for upgrade "%s" is not used: %s', source, plan.name, refusal.message);
  }
  if (weighed.problem !== undefined) throw weighed.problem;
  const [first, ...mirrors] = weighed.candidates as [Candidate, ...Candidate[]];
  logger.info(
    {
      source: first.source,
      url: first.download.shown,
      checksum: weighed.checksum === undefined ? null : formatChecksum(weighed.checksum),
      agreed: weighed.agreeing.map((a) => a.source),
      mirrors: mirrors.map((m) => m.source),
    },
    'the binary of upgrade "%s" comes from %s (%s); checksum %s given by %s',
    plan.name,
    first.source,
    first.download.shown,
    weighed.checksum === undefined ? '(none)' : formatChecksum(weighed.checksum),
    weighed.agreeing.length === 0 ? 'no source' : weighed.agreeing.map((a) => a.source).join(', '),
  );
  return weighed.candidates;
}

/** Failures of one URL that another URL of the same file may not have: worth trying the mirror. */
const mirrorWorthy = new Set([
  'CHAINVISOR_DOWNLOAD_FAILED',
  'CHAINVISOR_DOWNLOAD_DEADLINE',
  'CHAINVISOR_CHECKSUM_MISMATCH',
  'CHAINVISOR_URL_REFUSED',
  'CHAINVISOR_REDIRECT_REFUSED',
  'CHAINVISOR_DOWNLOAD_TOO_LARGE',
  'CHAINVISOR_PROXY_AUTH_REQUIRED',
]);

export function tryMirrorAfter(error: unknown): boolean {
  return typeof error === 'object' && error !== null && mirrorWorthy.has(String((error as { code?: unknown }).code));
}
