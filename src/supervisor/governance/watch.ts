/**
 * The upgrade proposals while they are voted (issue #45, docs/governance.md), under `chainvisor run`:
 * every CHAINVISOR_PROPOSAL_POLL_INTERVAL (and once at start) the proposals in their voting period are
 * read from the node through the chain reader (gRPC, else `abci_query`); for each upgrade proposal this
 * validator's vote is looked up, its binary checked (./binary.ts) and, where the operator allows it,
 * staged and rehearsed; the cancel window is weighed (./cancel-window.ts). What it finds is said on the
 * bus: `proposals` (the list, for status and metrics) each time it changes, and once per proposal
 * `upgrade-proposed`, `vote-missing` and each distinct `proposal-problem` (./record.ts keeps what was
 * said across restarts). It reads only: it never signs, votes or installs a plan.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { type ChainAddresses, type ChainClient, createGovReader, type GovReader, type ProposedUpgrade } from '../../chain/index.js';
import type { Config } from '../../config/index.js';
import { type Downloader, type Fetcher, fetcherFromConfig } from '../../download/index.js';
import type { Layout } from '../../home/layout/index.js';
import { backoffMs } from '../../shared/backoff.js';
import { createBlockClock } from '../../shared/eta.js';
import {
  describeCancelWindow,
  endsIn,
  type EventBus,
  type ProposalBinary,
  type ProposalView,
  type SupervisorEvent,
  type VoteChoice,
} from '../../shared/events/index.js';
import type { Logger } from '../../shared/log.js';
import { type BinaryCheck, checkProposalBinary } from './binary.js';
import { type GovPeriods, tooLateToCancel } from './cancel-window.js';
import { loadSentRecord, type SentRecord } from './record.js';
import { findVoter, type Voter } from './voter.js';

export interface GovernanceOptions {
  config: Config;
  layout: Layout;
  logger: Logger;
  events: EventBus;
  /** The chain reader of the node (src/chain's createChainReader): governance asks through it, and closes it when it stops. */
  client: ChainClient;
  /** Where the node listens: its RPC tells the validator's address when a remote signer holds the key. */
  addresses: ChainAddresses;
  /** Tests: another gov reader, downloader, fetcher, clock. */
  gov?: GovReader;
  download?: Downloader;
  fetcher?: Fetcher;
  now?: () => number;
}

export interface Governance {
  stop(): Promise<void>;
}

/** While a new proposal waits for the block time (to weigh its cancel window), it is read again this soon, at most this many times. */
const blockTimeWaitMs = 15_000;
const blockTimeWaits = 8;

/** Binaries of proposals fetched and kept while their votes run, at most. */
const maxStaged = 3;

/** Gov params change rarely (by governance): read again every this many readings. */
const paramsEvery = 6;

export async function startGovernance(options: GovernanceOptions): Promise<Governance> {
  const { config, layout, events } = options;
  const now = options.now ?? Date.now;
  const logger = options.logger.child({ component: 'governance' });
  const gov: GovReader = options.gov ?? createGovReader(options.client);
  // Made at the first binary check: most of the time no proposal is voted, and an idle `run` keeps no HTTP agent for it.
  let fetcher = options.fetcher;
  const fetcherNow = () => (fetcher ??= fetcherFromConfig(config, logger));
  const sent: SentRecord = await loadSentRecord({ stateDir: layout.stateDir, logger });
  const stopped = new AbortController();
  const clock = createBlockClock();
  let proposals: ProposedUpgrade[] = [];
  const votes = new Map<string, VoteChoice | null>();
  /** The binary of each proposal, by id and Info (a changed Info is checked again). */
  const binaries = new Map<string, { info: string; check: BinaryCheck }>();
  let periods: GovPeriods | undefined;
  let readings = 0;
  let voter: Voter | undefined;
  let misses = 0;
  let saidUnreadable = false;
  let waitsForBlockTime = 0;
  let lastSaid = '';
  const saidProblems = new Set<string>();
  let wake: AbortController | undefined;

  const upgradeOf = (p: ProposedUpgrade) => ({ name: p.plan.name, height: p.plan.height });
  const votingEnd = (p: ProposedUpgrade) => (p.votingEndMs === null ? null : new Date(p.votingEndMs).toISOString());
  const windowOf = (p: ProposedUpgrade) => tooLateToCancel({ height: p.plan.height, votingEndMs: p.votingEndMs }, periods, clock.blockTime(), now());
  const binaryOf = (p: ProposedUpgrade): ProposalBinary => {
    const known = binaries.get(p.id);
    return known !== undefined && known.info === p.plan.info ? known.check.binary : { state: 'unchecked' };
  };

  function view(p: ProposedUpgrade): ProposalView {
    return {
      id: p.id,
      name: p.plan.name,
      height: String(p.plan.height),
      votingEnd: votingEnd(p),
      tally: p.tally,
      vote: votes.get(p.id) ?? null,
      binary: binaryOf(p),
      tooLateToCancel: windowOf(p),
      gov: p.gov,
    };
  }

  /** The list on the bus, when anything in it changed. */
  function tell(): void {
    const list = proposals.map(view);
    const said = JSON.stringify(list);
    if (said === lastSaid) return;
    lastSaid = said;
    events.emit('proposals', { text: `${list.length} upgrade proposal(s) in their voting period`, data: { proposals: list } });
  }

  function announce(p: ProposedUpgrade): void {
    const entry = sent.get(p.id);
    if (entry.proposed) return;
    const window = windowOf(p);
    // The cancel window needs the block time: a new proposal waits a few readings for it, then is announced without.
    if (window === null && clock.blockTime() === null && periods !== undefined && waitsForBlockTime < blockTimeWaits) return;
    const end = votingEnd(p);
    const late = window === null ? '' : `; ${describeCancelWindow(window)}`;
    const text = `upgrade "${p.plan.name}" proposed at height ${p.plan.height} (proposal #${p.id}; voting ${endsIn(end, now())}${end === null ? '' : `, at ${end}`})${late}`;
    events.emit('upgrade-proposed', {
      upgrade: upgradeOf(p),
      text,
      data: { proposal: p.id, title: p.title, votingEnd: end, gov: p.gov, tooLateToCancel: window, binary: binaryOf(p) },
    });
    sent.set(p.id, { ...entry, proposed: true });
  }

  function remind(p: ProposedUpgrade): void {
    const entry = sent.get(p.id);
    if (entry.reminded || config.voteReminder === 0 || votes.get(p.id) !== 'none' || p.votingEndMs === null) return;
    const left = p.votingEndMs - now();
    if (left <= 0 || left > config.voteReminder) return;
    const end = votingEnd(p);
    const who = voter?.kind === 'validator' ? ` (${voter.moniker || voter.operator})` : '';
    events.emit('vote-missing', {
      upgrade: upgradeOf(p),
      text: `this validator${who} has not voted on proposal #${p.id}, upgrade "${p.plan.name}" at height ${p.plan.height}: voting ${endsIn(end, now())}, at ${end}`,
      data: { proposal: p.id, votingEnd: end, ...(voter?.kind === 'validator' ? { operator: voter.operator, voter: voter.account } : {}) },
    });
    sent.set(p.id, { ...entry, reminded: true });
  }

  function problem(p: ProposedUpgrade, binary: ProposalBinary): void {
    if (binary.state !== 'problem' || binary.problem === undefined) return;
    const entry = sent.get(p.id);
    if (entry.problem === binary.problem) return;
    const end = votingEnd(p);
    events.emit('proposal-problem', {
      upgrade: upgradeOf(p),
      text: `proposal #${p.id}, upgrade "${p.plan.name}" at height ${p.plan.height}: its binary cannot be used: ${binary.problem}. Vote no or tell the proposer before the vote ends (${endsIn(end, now())})`,
      data: { proposal: p.id, votingEnd: end, problem: binary.problem, ...(binary.source === undefined ? {} : { source: binary.source }) },
    });
    sent.set(p.id, { ...entry, problem: binary.problem });
  }

  async function readVotes(): Promise<void> {
    if (voter === undefined) {
      voter = await findVoter({ home: layout.home, gov, addresses: options.addresses });
      if (voter.kind === 'none') logger.info(voter.why);
      else
        logger.info(
          { operator: voter.operator, voter: voter.account },
          "this node's validator is %s (%s): its votes on upgrade proposals are looked up",
          voter.moniker,
          voter.operator,
        );
    }
    for (const p of proposals) {
      if (voter.kind === 'none') votes.set(p.id, null);
      else votes.set(p.id, await gov.vote(p.id, voter.account));
    }
  }

  async function read(): Promise<void> {
    const list = await gov.upgradeProposals();
    // A proposal or tally that cannot be read is left out by the reader: said once each, never taken for another.
    for (const problem of list.problems) {
      if (saidProblems.has(problem)) continue;
      saidProblems.add(problem);
      logger.warn({ problem }, 'an upgrade proposal read from the node is left out: %s', problem);
    }
    const height = await options.client.latestHeight();
    clock.observe(height, now());
    if (periods === undefined || readings % paramsEvery === 0)
      periods = await gov.params().then(({ votingPeriodMs, depositPeriodMs }) => ({ votingPeriodMs, depositPeriodMs }));
    readings += 1;
    proposals = [...list];
    sent.keepOnly(proposals.map((p) => p.id));
    for (const id of [...binaries.keys()]) if (!proposals.some((p) => p.id === id)) binaries.delete(id);
    for (const id of [...votes.keys()]) if (!proposals.some((p) => p.id === id)) votes.delete(id);
    try {
      await readVotes();
    } catch (error) {
      // The votes are worth less than the rest: the list is said without them, and they are asked again next time.
      logger.warn({ err: error }, 'the validator and its votes could not be read: %s', error instanceof Error ? error.message : String(error));
      if (voter?.kind === 'validator') for (const p of proposals) if (!votes.has(p.id)) votes.set(p.id, null);
    }
    tell();
    for (const p of proposals) {
      announce(p);
      remind(p);
    }
  }

  /** The binaries not checked yet (or whose last check could not finish), one after another. */
  async function checkBinaries(): Promise<void> {
    for (const p of proposals) {
      if (stopped.signal.aborted) return;
      const known = binaries.get(p.id);
      if (known !== undefined && known.info === p.plan.info && !known.check.again) continue;
      // Anyone with a deposit can propose: a flood of proposals never becomes a flood of downloads and rehearsals.
      const staged = proposals.filter((q) => ['staged', 'rehearsed'].includes(binaryOf(q).state)).length;
      const check = await checkProposalBinary({
        plan: p.plan,
        ...(staged >= maxStaged ? { noFetch: `${staged} proposals' binaries are staged already, the most fetched while votes run` } : {}),
        config,
        layout,
        logger,
        fetcher: fetcherNow(),
        events,
        signal: stopped.signal,
        ...(options.download ? { download: options.download } : {}),
      });
      if (!proposals.some((q) => q.id === p.id)) continue;
      binaries.set(p.id, { info: p.plan.info, check });
      if (check.again)
        logger.info(
          { proposal: p.id, upgrade: p.plan.name },
          'the binary of proposal #%s could not be checked yet (%s); trying again at the next reading',
          p.id,
          check.binary.problem,
        );
      problem(p, check.binary);
      tell();
    }
  }

  /** A rehearsal of a proposal's staged binary: passed is `rehearsed`, failed is a problem of the proposal. */
  function rehearsed(event: SupervisorEvent): void {
    const p = proposals.find((q) => q.plan.name === event.upgrade?.name);
    const known = p === undefined ? undefined : binaries.get(p.id);
    if (p === undefined || known === undefined || known.check.binary.state !== 'staged') return;
    const binary: ProposalBinary =
      event.event === 'rehearsal-passed'
        ? { ...known.check.binary, state: 'rehearsed' }
        : {
            ...known.check.binary,
            state: 'problem',
            problem: `its rehearsal failed: ${typeof event.data?.reason === 'string' ? event.data.reason : 'see chainvisor status'}`,
          };
    binaries.set(p.id, { info: known.info, check: { binary, again: false } });
    problem(p, binary);
    tell();
  }

  const offBus = events.on((event) => {
    if (event.event === 'rehearsal-passed' || event.event === 'rehearsal-failed') rehearsed(event);
    else if (event.event === 'chain-height' && typeof event.data?.height === 'number') clock.observe(event.data.height, event.time);
    else if (event.event === 'node-started' && misses > 0) wake?.abort();
  });

  /** Until the next reading: the interval, sooner for a reminder due before it or a proposal waiting for the block time. */
  function nextWait(): number {
    if (misses > 0) return backoffMs({ attempt: misses, baseMs: 1000, maxMs: config.proposalPollInterval });
    let wait = config.proposalPollInterval;
    if (proposals.some((p) => !sent.get(p.id).proposed) && waitsForBlockTime < blockTimeWaits) {
      waitsForBlockTime += 1;
      wait = Math.min(wait, blockTimeWaitMs);
    }
    if (config.voteReminder > 0)
      for (const p of proposals) {
        if (votes.get(p.id) !== 'none' || sent.get(p.id).reminded || p.votingEndMs === null) continue;
        const due = p.votingEndMs - config.voteReminder - now();
        if (due > 0) wait = Math.min(wait, due + 1000);
      }
    return wait;
  }

  const loop = (async () => {
    while (!stopped.signal.aborted) {
      try {
        await read();
        if (saidUnreadable) logger.info('the upgrade proposals can be read again');
        misses = 0;
        saidUnreadable = false;
        await checkBinaries();
      } catch (error) {
        if (stopped.signal.aborted) return;
        misses += 1;
        const reason = error instanceof Error ? error.message : String(error);
        // A node still starting does not answer for a while: said once it has not for a few readings.
        if (!saidUnreadable && misses >= 4) {
          saidUnreadable = true;
          logger.warn({ reason }, 'the upgrade proposals cannot be read from the node: %s; trying again', reason);
        } else logger.debug({ reason }, 'the upgrade proposals could not be read; trying again');
      }
      wake = new AbortController();
      try {
        await sleep(nextWait(), undefined, { signal: AbortSignal.any([stopped.signal, wake.signal]), ref: false });
      } catch {
        if (stopped.signal.aborted) return;
      }
    }
  })();

  return {
    async stop() {
      stopped.abort();
      offBus();
      await loop;
      await sent.settled();
      options.client.close();
      if (options.fetcher === undefined) await fetcher?.close();
    },
  };
}
