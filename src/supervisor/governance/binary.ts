/**
 * A proposal's binary while the vote runs (issue #45, item 2): its Info checked as `check-plan` checks a
 * plan — a binary for this platform, a well-formed checksum, the URL policy, the sources and quorum of
 * CHAINVISOR_UPGRADE_SOURCES — without fetching anything from the proposer; then, only where
 * CHAINVISOR_STAGE_PROPOSALS allows the URL's host, fetched, verified before anything is unpacked, and
 * staged in `upgrades/<name>/` through the one staging path (download/staging), so that the plan of a
 * passed proposal finds it there and nothing is fetched twice. Anyone with a deposit can make a proposal:
 * a download tells the URL's owner this node's address, hence the operator's choice.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import type { ScheduledPlan } from '../../chain/index.js';
import type { Config } from '../../config/index.js';
import type { Downloader, Fetcher } from '../../download/index.js';
import { stagePlan } from '../../download/staging/index.js';
import type { Layout } from '../../home/layout/index.js';
import { ChainvisorError } from '../../shared/errors/index.js';
import type { EventBus, ProposalBinary } from '../../shared/events/index.js';
import { shownText } from '../../shared/json.js';
import type { Logger } from '../../shared/log.js';
import { retryableStatus } from '../../shared/net/index.js';

export interface BinaryCheckOptions {
  plan: ScheduledPlan;
  /** The proposal's id: its staged record says so. */
  proposal: string;
  config: Config;
  layout: Layout;
  logger: Logger;
  fetcher: Fetcher;
  events: EventBus;
  signal: AbortSignal;
  /** Why nothing may be fetched now, whatever CHAINVISOR_STAGE_PROPOSALS says (too many staged already). */
  noFetch?: string;
  /** Tests: another downloader. */
  download?: Downloader;
}

/**
 * What a check found; `again`: it could not finish (a source or the download did not answer), and is
 * tried at the next reading; `fetched`: the binary was downloaded (or tried), which counts against the
 * proposals fetched while voted.
 */
export interface BinaryCheck {
  binary: ProposalBinary;
  again: boolean;
  fetched: boolean;
  /** The binary in `upgrades/<name>/`, when staged there (or installed by the operator). */
  file?: string;
}

/**
 * The last rehearsal of an upgrade, as `cosmovisor/.chainvisor/rehearsals.json` keeps it (read by the
 * caller: src/rehearsal sits above this floor).
 */
export interface RehearsalOutcome {
  upgrade: string;
  result: 'passed' | 'failed';
  reason: string | null;
  binary_sha256: string;
}

/** A staged binary after its rehearsal: `rehearsed`, or a problem of the proposal with the rehearsal's reason. */
export function afterRehearsal(binary: ProposalBinary, passed: boolean, reason: string | null | undefined): ProposalBinary {
  return passed ? { ...binary, state: 'rehearsed' } : { ...binary, state: 'problem', problem: `its rehearsal failed: ${reason ?? 'see chainvisor status'}` };
}

/** Whether CHAINVISOR_STAGE_PROPOSALS lets chainvisor fetch `url` while the vote runs. */
export function stagingAllowed(setting: string, url: URL | string): boolean {
  if (setting === 'off') return false;
  if (setting === 'any') return true;
  let host: string;
  try {
    host = (typeof url === 'string' ? new URL(url) : url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return setting.split(',').includes(host);
}

/**
 * Problems that are the proposal's, not the moment's: a wrong checksum, no binary, a refused URL, an
 * answer the server will give again (a 404). A timeout, this host's disk, a status worth retrying or a
 * failure of the network (a proxy, TLS) is the moment's: tried again at the next reading, never paged.
 */
function isTheProposals(error: ChainvisorError): boolean {
  switch (error.code) {
    case 'CHAINVISOR_DOWNLOAD_DEADLINE':
    case 'CHAINVISOR_DOWNLOAD_IO':
    case 'CHAINVISOR_DOWNLOAD_ABORTED':
      return false;
    case 'CHAINVISOR_DOWNLOAD_FAILED': {
      const status = (error as ChainvisorError & { status?: number }).status;
      return status !== undefined && !retryableStatus(status);
    }
    default:
      return true;
  }
}

export async function checkProposalBinary(options: BinaryCheckOptions): Promise<BinaryCheck> {
  const { plan, config, logger, fetcher, signal } = options;
  const setting = config.stageProposals;
  // The download code (archives, tar, unzipper) is loaded at the first check, never by an idle `run`.
  const { hostPlatform, isInfoUrl, resolveSources } = await import('../../download/index.js');
  const info = plan.info.trim();
  if (isInfoUrl(info) && !stagingAllowed(setting, info))
    return {
      binary: { state: 'unchecked', problem: `the Info is a URL (${shownText(info, 200)}): it is read only where CHAINVISOR_STAGE_PROPOSALS allows its host` },
      again: false,
      fetched: false,
    };
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-proposal-'));
  let checked: ProposalBinary;
  try {
    const resolution = await resolveSources({ plan, config, platform: hostPlatform(), fetcher, workDir: work, logger, signal });
    const { weighed, answers } = resolution;
    if (weighed.problem !== undefined) {
      // An operator's document that did not answer is the moment's, unless two sources already disagree.
      const away = answers.some((a) => a.source !== 'plan' && a.state === 'unusable');
      const disagreement = weighed.problem.code === 'CHAINVISOR_CHECKSUM_DISAGREEMENT';
      return {
        binary: { state: disagreement || !away ? 'problem' : 'unchecked', problem: weighed.problem.message },
        again: away && !disagreement,
        fetched: false,
      };
    }
    const chosen = weighed.candidates[0];
    checked = {
      state: 'unchecked',
      ...(weighed.checksum === undefined ? {} : { checksum: `${weighed.checksum.algo}:${weighed.checksum.hex}` }),
      ...(chosen === undefined ? {} : { source: chosen.download.shown }),
    };
    if (chosen === undefined) return { binary: checked, again: false, fetched: false };
    const why = !config.allowDownloadBinaries
      ? 'DAEMON_ALLOW_DOWNLOAD_BINARIES is false'
      : setting === 'off'
        ? 'CHAINVISOR_STAGE_PROPOSALS is off'
        : !stagingAllowed(setting, chosen.download.url)
          ? `its host is not in CHAINVISOR_STAGE_PROPOSALS (${setting})`
          : options.noFetch;
    // Room left by a proposal whose vote ended: asked again at the next reading.
    if (why !== undefined)
      return { binary: { ...checked, problem: `not fetched while the vote runs: ${why}` }, again: why === options.noFetch, fetched: false };
  } catch (error) {
    if (!(error instanceof ChainvisorError)) throw error;
    return { binary: { state: isTheProposals(error) ? 'problem' : 'unchecked', problem: error.message }, again: !isTheProposals(error), fetched: false };
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
  try {
    // Into upgrades/<name>/ only when it is free or holds this very Info: never in place of the plan's
    // binary, another proposal's, or the operator's.
    const staged = await stagePlan({
      plan,
      config,
      layout: options.layout,
      logger,
      signal,
      events: options.events,
      keepOther: true,
      proposal: options.proposal,
      policy: fetcher.policy,
      ...(options.download ? { download: options.download } : {}),
    });
    // A binary the operator installed there is used at the height, not the proposal's: said as its source.
    if (staged.status === 'occupied') {
      const by =
        staged.occupiedBy?.proposal === undefined
          ? "a binary staged for another Info (the scheduled plan's)"
          : `the binary of proposal #${staged.occupiedBy.proposal}`;
      return { binary: { ...checked, problem: `not fetched while the vote runs: ${staged.dir} holds ${by}` }, again: true, fetched: false };
    }
    if (staged.status === 'installed')
      return {
        binary: { ...checked, state: 'staged', source: `installed by the operator in ${staged.dir}` },
        again: false,
        fetched: false,
        file: staged.binary,
      };
    return { binary: { ...checked, state: 'staged' }, again: false, fetched: staged.status === 'downloaded', file: staged.binary };
  } catch (error) {
    if (!(error instanceof ChainvisorError) || signal.aborted) throw error;
    const proposals = isTheProposals(error);
    return { binary: { ...checked, state: proposals ? 'problem' : 'unchecked', problem: error.message }, again: !proposals, fetched: true };
  }
}
