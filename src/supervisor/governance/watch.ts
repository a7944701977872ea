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
import type { Downloader, Fetcher } from '../../download/index.js';
import { markNotPlanned } from '../../download/staging/index.js';
import type { Layout } from '../../home/layout/index.js';
import { backoffMs } from '../../shared/backoff.js';
import { createBlockClock } from '../../shared/eta.js';
import type { EventBus, ProposalBinary, SupervisorEvent, VoteChoice } from '../../shared/events/index.js';
import { hashFile } from '../../shared/fsread/index.js';
import { shownText } from '../../shared/json.js';
import type { Logger } from '../../shared/log.js';
import { afterRehearsal, type BinaryCheck, checkProposalBinary, type RehearsalOutcome } from './binary.js';
import { type GovPeriods, tooLateToCancel } from './cancel-window.js';
import { type Notice, problemNotice, proposedNotice, reminderNotice, viewOf } from './notices.js';
import { loadSentRecord, problemKey, type SentRecord } from './record.js';
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
  /** The rehearsals kept in the home (src/rehearsal's record): a staged binary rehearsed before this run shows its outcome. */
  rehearsals?: () => Promise<readonly RehearsalOutcome[]>;
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

/** Binaries of proposals fetched while their votes run, at most (a failed fetch counts too). */
const maxFetched = 3;

/** How long a running node may not answer before it is said (as the plan watch waits). */
const unreadableAfterMs = 60_000;

/** Gov params change rarely (by governance): read again every this many readings. */
const paramsEvery = 6;

export async function startGovernance(options: GovernanceOptions): Promise<Governance> {
  const { config, layout, events } = options;
  const now = options.now ?? Date.now;
  const logger = options.logger.child({ component: 'governance' });
  const gov: GovReader = options.gov ?? createGovReader(options.client);
  // Made at the first binary check: most of the time no proposal is voted, and an idle `run` keeps no HTTP agent for it.
  let fetcher = options.fetcher;
  // With CHAINVISOR_STAGE_PROPOSALS=any, a proposer's URL is nobody's choice: public https hosts only,
  // redirects and the sources' documents included. A host the operator listed is trusted as listed.
  const policy = { allowInsecureHttp: config.allowInsecureHttp, allowFileUrls: config.allowFileUrls, publicOnly: config.stageProposals === 'any' };
  const fetcherNow = async () => (fetcher ??= (await import('../../download/index.js')).fetcherFromConfig(config, logger, { policy }));
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
  /** Since when the node runs: a node that does not answer is said so once it has run `unreadableAfterMs`. */
  let nodeSince: number | undefined;
  let saidUnreadable = false;
  let waitsForBlockTime = 0;
  let lastSaid = '';
  let saidVotesUnreadable = false;
  const saidProblems = new Set<string>();
  let wake: AbortController | undefined;
  /** Aborted when the node halts for an upgrade, until a node starts again. */
  let halting = new AbortController();

  const windowOf = (p: ProposedUpgrade) => tooLateToCancel({ height: p.plan.height, votingEndMs: p.votingEndMs }, periods, clock.blockTime(), now());
  const binaryOf = (p: ProposedUpgrade): ProposalBinary => {
    const known = binaries.get(p.id);
    return known !== undefined && known.info === p.plan.info ? known.check.binary : { state: 'unchecked' };
  };
  const emit = (event: 'upgrade-proposed' | 'vote-missing' | 'proposal-problem', notice: Notice) => events.emit(event, notice);

  /** The list on the bus, when anything in it changed. */
  function tell(): void {
    const list = proposals.map((p) => viewOf(p, { vote: votes.get(p.id) ?? null, binary: binaryOf(p), window: windowOf(p) }));
    const said = JSON.stringify(list);
    if (said === lastSaid) return;
    lastSaid = said;
    events.emit('proposals', { text: `${list.length} upgrade proposal(s) in their voting period`, data: { proposals: list } });
  }

  /** What is kept of a proposal in the record: until its voting end. */
  const entryOf = (p: ProposedUpgrade) => ({ ...sent.get(p.id), ...(p.votingEndMs === null ? {} : { until: p.votingEndMs }) });

  function announce(p: ProposedUpgrade): void {
    if (sent.get(p.id).proposed) return;
    const window = windowOf(p);
    // The cancel window needs the block time: a new proposal waits a few readings for it, then is announced without.
    if (window === null && clock.blockTime() === null && periods !== undefined && waitsForBlockTime < blockTimeWaits) return;
    emit('upgrade-proposed', proposedNotice(p, window, binaryOf(p), now()));
    sent.set(p.id, { ...entryOf(p), proposed: true });
  }

  function remind(p: ProposedUpgrade): void {
    if (sent.get(p.id).reminded || config.voteReminder === 0 || voter?.kind !== 'validator' || votes.get(p.id) !== 'none' || p.votingEndMs === null) return;
    const left = p.votingEndMs - now();
    if (left <= 0 || left > config.voteReminder) return;
    emit('vote-missing', reminderNotice(p, voter, now()));
    sent.set(p.id, { ...entryOf(p), reminded: true });
  }

  function problem(p: ProposedUpgrade, binary: ProposalBinary): void {
    if (binary.state !== 'problem' || binary.problem === undefined) return;
    const key = problemKey(binary.problem);
    if (sent.get(p.id).problem === key) return;
    emit('proposal-problem', problemNotice(p, { ...binary, problem: binary.problem }, now()));
    sent.set(p.id, { ...entryOf(p), problem: key });
  }

  /** This validator's votes; who it is is looked up again while it is not found (a validator made during the vote). */
  async function readVotes(): Promise<void> {
    if (voter?.kind !== 'validator') {
      const found = await findVoter({ home: layout.home, gov, addresses: options.addresses });
      if (found.kind === 'none' && voter?.kind !== 'none') logger.info(found.why);
      if (found.kind === 'validator')
        logger.info(
          { operator: found.operator, voter: found.account },
          "this node's validator is %s (%s): its votes on upgrade proposals are looked up",
          shownText(found.moniker, 80),
          found.operator,
        );
      voter = found;
    }
    for (const p of proposals) votes.set(p.id, voter.kind === 'none' ? null : await gov.vote(p.id, voter.account));
  }

  /** A proposal that left its voting period: the binary fetched for it stays, marked not planned, unless its plan is now scheduled. */
  async function ended(gone: ProposedUpgrade[]): Promise<void> {
    const fetched = gone.filter((p) => binaries.get(p.id)?.check.fetched === true);
    if (fetched.length === 0) return;
    const plan = await options.client.currentPlan().catch(() => undefined);
    for (const p of fetched) if (plan?.name !== p.plan.name) await markNotPlanned({ plan: p.plan, layout }).catch(() => false);
  }

  async function read(): Promise<void> {
    const list = await gov.upgradeProposals();
    // A proposal or tally that cannot be read is left out by the reader: said once each, never taken for another.
    for (const said of list.problems) {
      if (saidProblems.has(said)) continue;
      saidProblems.add(said);
      logger.warn({ problem: said }, 'an upgrade proposal read from the node is left out: %s', said);
    }
    const gone = proposals.filter((p) => !list.some((q) => q.id === p.id));
    proposals = [...list];
    // With no proposal voted, nothing more is asked: no height, no params, no validator (an idle `run` pays for one query).
    if (proposals.length > 0) {
      clock.observe(await options.client.latestHeight(), now());
      if (periods === undefined || readings % paramsEvery === 0)
        periods = await gov.params().then(({ votingPeriodMs, depositPeriodMs }) => ({ votingPeriodMs, depositPeriodMs }));
      readings += 1;
    }
    sent.keepOnly(
      proposals.map((p) => p.id),
      now(),
    );
    await ended(gone);
    for (const id of [...binaries.keys()]) if (!proposals.some((p) => p.id === id)) binaries.delete(id);
    for (const id of [...votes.keys()]) if (!proposals.some((p) => p.id === id)) votes.delete(id);
    if (proposals.length > 0)
      try {
        await readVotes();
        saidVotesUnreadable = false;
      } catch (error) {
        // The votes are worth less than the rest: the list is said without them (said once), and they are asked again next time.
        const reason = error instanceof Error ? error.message : String(error);
        if (!saidVotesUnreadable) logger.warn({ reason }, 'the validator and its votes could not be read: %s', reason);
        saidVotesUnreadable = true;
        for (const p of proposals) if (!votes.has(p.id)) votes.set(p.id, null);
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
      // A proposal's download never holds a folder the halt's binary step waits for: ended at the halt, and
      // taken up again at the first reading after the new node starts.
      const signal = AbortSignal.any([stopped.signal, halting.signal]);
      if (signal.aborted) return;
      const known = binaries.get(p.id);
      if (known !== undefined && known.info === p.plan.info && !known.check.again) continue;
      // Anyone with a deposit can propose: a flood of proposals never becomes a flood of downloads and rehearsals.
      // Every binary fetched counts, a failed one too, until its proposal leaves its voting period.
      const fetched = proposals.filter((q) => binaries.get(q.id)?.check.fetched === true).length;
      const checked = await checkProposalBinary({
        plan: p.plan,
        proposal: p.id,
        ...(fetched >= maxFetched ? { noFetch: `the binaries of ${fetched} proposals still voted were fetched already, the most while votes run` } : {}),
        config,
        layout,
        logger,
        fetcher: await fetcherNow(),
        events,
        signal,
        ...(options.download ? { download: options.download } : {}),
      }).catch((error: unknown) => {
        if (halting.signal.aborted && !stopped.signal.aborted) return undefined;
        throw error;
      });
      if (checked === undefined) return;
      if (!proposals.some((q) => q.id === p.id)) continue;
      const check = await withRehearsal(p, checked);
      binaries.set(p.id, { info: p.plan.info, check });
      if (check.again)
        logger.debug(
          { proposal: p.id, upgrade: p.plan.name },
          'the binary of proposal #%s could not be checked yet (%s); trying again at the next reading',
          p.id,
          check.binary.problem,
        );
      problem(p, check.binary);
      tell();
    }
  }

  /**
   * A staged binary rehearsed before this run (chainvisor restarted during the vote): the automatic
   * rehearsal never repeats a binary it has a record of, so the record is its outcome. Matched by sha256.
   */
  async function withRehearsal(p: ProposedUpgrade, check: BinaryCheck): Promise<BinaryCheck> {
    if (check.binary.state !== 'staged' || check.file === undefined || options.rehearsals === undefined) return check;
    // A record that cannot be read is none (the reader says so in status); anything else is a failed reading, tried again.
    const mine = (await options.rehearsals()).filter((r) => r.upgrade === p.plan.name);
    if (mine.length === 0) return check;
    const digest = await hashFile(check.file);
    const record = digest.status === 'ok' ? mine.find((r) => r.binary_sha256 === digest.hex) : undefined;
    return record === undefined ? check : { ...check, binary: afterRehearsal(check.binary, record.result === 'passed', record.reason) };
  }

  /** A rehearsal of a proposal's staged binary: passed is `rehearsed`, failed is a problem of the proposal. */
  function rehearsed(event: SupervisorEvent): void {
    const p = proposals.find((q) => q.plan.name === event.upgrade?.name);
    const known = p === undefined ? undefined : binaries.get(p.id);
    if (p === undefined || known === undefined || known.check.binary.state !== 'staged') return;
    const reason = typeof event.data?.reason === 'string' ? event.data.reason : undefined;
    const binary = afterRehearsal(known.check.binary, event.event === 'rehearsal-passed', reason);
    binaries.set(p.id, { info: known.info, check: { ...known.check, binary } });
    problem(p, binary);
    tell();
  }

  const offBus = events.on((event) => {
    if (event.event === 'rehearsal-passed' || event.event === 'rehearsal-failed') rehearsed(event);
    else if (event.event === 'chain-height' && typeof event.data?.height === 'number') clock.observe(event.data.height, event.time);
    else if (event.event === 'upgrade-detected') halting.abort();
    else if (event.event === 'node-started') {
      if (halting.signal.aborted) halting = new AbortController();
      nodeSince = event.time;
      if (misses > 0) wake?.abort();
    } else if (event.event === 'node-stopped') nodeSince = undefined;
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
        // A node still starting does not answer for a while (a large state opens its gRPC late): said once it has run a minute.
        if (!saidUnreadable && nodeSince !== undefined && now() - nodeSince >= unreadableAfterMs) {
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
