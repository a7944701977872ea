/**
 * Governance as the node's query router tells it (issue #45): the software-upgrade proposals in their
 * voting period with their tallies, the gov params that bound a cancellation, a voter's vote, and the
 * validator of a consensus key. gov v1 first; a chain that does not serve it (before SDK v0.46) is
 * read through v1beta1. Every answer is bounded (query.ts, pages.ts); a proposal that says what no
 * chain could is left out with its reason in `problems`, never the whole read.
 * Why, and the rest of its rules: docs/design/chain.md#chaingovernancets.
 */
import * as v1 from 'cosmjs-types/cosmos/gov/v1/query.js';
import * as v1beta1 from 'cosmjs-types/cosmos/gov/v1beta1/query.js';
import type { Duration } from 'cosmjs-types/google/protobuf/duration.js';

import type { ProposalTally, VoteChoice } from '../shared/events/index.js';
import { shownText } from '../shared/json.js';
import { ChainAnswerRefusedError, ChainQueryError } from './errors.js';
import { type ProposedUpgrade, tallyShares, type UpgradeOfProposal, upgradeOfV1, upgradeOfV1beta1, votingPeriodStatus } from './gov-proposals.js';
import type { ChainClient } from './grpc-client.js';
import { pages } from './pages.js';
import { decodeAnswer } from './query.js';
import { type StakingValidator, validatorByConsensusAddress } from './validators.js';

export type GovVersion = 'v1' | 'v1beta1';

/** The upgrade proposals read, and why any was left out or is known only in part (texts safe to print). */
export type UpgradeProposals = ProposedUpgrade[] & { problems: string[] };

export interface GovParams {
  votingPeriodMs: number;
  depositPeriodMs: number;
  gov: GovVersion;
}

export interface GovReader {
  /**
   * Software-upgrade proposals in their voting period, gov v1 first, v1beta1 when the chain has no v1.
   * A proposal that cannot be read is left out, and a tally that cannot be read is null, the reason in
   * the list's `problems`. Throws ChainAnswerRefusedError for a list that does not end (over 10 pages
   * of 100) or an answer that is not one; ChainUnavailableError when the node cannot be asked.
   */
  upgradeProposals(): Promise<UpgradeProposals>;
  /** The gov params that bound a cancellation: voting and deposit periods (ms). */
  params(): Promise<GovParams>;
  /** The vote of `voter` (a bech32 account address) on proposal `id`; `none` when it has not voted. */
  vote(id: string, voter: string): Promise<VoteChoice>;
  /**
   * The validator whose consensus key has this address (40 hex digits, as priv_validator_key.json's
   * `address`); undefined when no validator has it.
   */
  validatorByConsensusAddress(address: string): Promise<StakingValidator | undefined>;
}

type Client = Pick<ChainClient, 'query' | 'describe' | 'address'>;

const proposalPages = { what: 'proposals in their voting period', perPage: 100, maxPages: 10 };

export function createGovReader(client: Client): GovReader {
  /** `path` of gov v1, or of v1beta1 when the chain serves no v1 (ChainQueryError `unknown`). */
  async function eitherGov<T>(ask: (gov: GovVersion) => Promise<T>): Promise<T> {
    try {
      return await ask('v1');
    } catch (error) {
      if (error instanceof ChainQueryError && error.kind === 'unknown') return ask('v1beta1');
      throw error;
    }
  }

  const refuse = (what: string, reason: string) => new ChainAnswerRefusedError(client.address, what, reason, client.describe());

  async function ask<T>(path: string, request: Uint8Array, codec: { decode(bytes: Uint8Array): T }, typeName: string, what: string): Promise<T> {
    return decodeAnswer(codec, await client.query(path, request, what), client, what, typeName);
  }

  async function upgradesOf(gov: GovVersion, problems: string[]): Promise<UpgradeOfProposal[]> {
    const what = 'the proposals in their voting period';
    const found: UpgradeOfProposal[] = [];
    const list = pages(client, proposalPages, async (pagination) => {
      const request = { proposalStatus: votingPeriodStatus, voter: '', depositor: '', pagination };
      if (gov === 'v1') {
        const r = await ask(
          '/cosmos.gov.v1.Query/Proposals',
          v1.QueryProposalsRequest.encode(request).finish(),
          v1.QueryProposalsResponse,
          'QueryProposalsResponse',
          what,
        );
        return { items: r.proposals.map(upgradeOfV1), pagination: r.pagination };
      }
      const r = await ask(
        '/cosmos.gov.v1beta1.Query/Proposals',
        v1beta1.QueryProposalsRequest.encode(request).finish(),
        v1beta1.QueryProposalsResponse,
        'QueryProposalsResponse',
        what,
      );
      return { items: r.proposals.map(upgradeOfV1beta1), pagination: r.pagination };
    });
    for await (const page of list) {
      for (const upgrade of page) {
        if (typeof upgrade === 'string') problems.push(upgrade);
        else if (upgrade !== undefined) found.push(upgrade);
      }
    }
    return found;
  }

  /** The shares of the votes cast so far on proposal `id`, or why they are unknown. */
  async function tallyOf(gov: GovVersion, id: string): Promise<ProposalTally | string> {
    const what = `the tally of proposal #${id}`;
    const proposalId = BigInt(id);
    try {
      if (gov === 'v1') {
        const { tally } = await ask(
          '/cosmos.gov.v1.Query/TallyResult',
          v1.QueryTallyResultRequest.encode({ proposalId }).finish(),
          v1.QueryTallyResultResponse,
          'QueryTallyResultResponse',
          what,
        );
        const counts = { yes: tally?.yesCount ?? '', no: tally?.noCount ?? '', abstain: tally?.abstainCount ?? '', noWithVeto: tally?.noWithVetoCount ?? '' };
        return tallyShares(counts);
      }
      const { tally } = await ask(
        '/cosmos.gov.v1beta1.Query/TallyResult',
        v1beta1.QueryTallyResultRequest.encode({ proposalId }).finish(),
        v1beta1.QueryTallyResultResponse,
        'QueryTallyResultResponse',
        what,
      );
      return tallyShares({ yes: tally.yes, no: tally.no, abstain: tally.abstain, noWithVeto: tally.noWithVeto });
    } catch (error) {
      // The node away is the whole read failing; a query it refused, or an answer of another shape, is this tally unknown.
      if (error instanceof ChainAnswerRefusedError || (error instanceof ChainQueryError && error.kind !== 'unknown')) return error.message;
      throw error;
    }
  }

  function durationMs(duration: Duration | undefined, name: string, what: string): number {
    if (duration === undefined) throw refuse(what, `it has no ${name}`);
    const ms = duration.seconds * 1000n + BigInt(Math.trunc(duration.nanos / 1_000_000));
    if (duration.seconds < 0n || duration.nanos < 0 || ms > BigInt(Number.MAX_SAFE_INTEGER))
      throw refuse(what, `its ${name} (${duration.seconds} s) is not a period`);
    return Number(ms);
  }

  return {
    async upgradeProposals() {
      const problems: string[] = [];
      let gov: GovVersion = 'v1';
      const upgrades = await eitherGov((version) => ((gov = version), upgradesOf(version, problems)));
      const read: ProposedUpgrade[] = [];
      for (const upgrade of upgrades) {
        const tally = await tallyOf(gov, upgrade.id);
        if (typeof tally === 'string') problems.push(`proposal #${upgrade.id}: its tally is unknown: ${tally}`);
        read.push({ ...upgrade, tally: typeof tally === 'string' ? null : tally });
      }
      return Object.assign(read, { problems });
    },

    async params() {
      const what = 'the gov params';
      return eitherGov(async (gov) => {
        if (gov === 'v1') {
          // SDK v0.47+ answers `params` whatever type is asked; v0.46 only the section of the type asked.
          const voting = await ask(
            '/cosmos.gov.v1.Query/Params',
            v1.QueryParamsRequest.encode({ paramsType: 'voting' }).finish(),
            v1.QueryParamsResponse,
            'QueryParamsResponse',
            what,
          );
          const votingPeriod = voting.params?.votingPeriod ?? voting.votingParams?.votingPeriod;
          const depositPeriod =
            voting.params?.maxDepositPeriod ??
            (
              await ask(
                '/cosmos.gov.v1.Query/Params',
                v1.QueryParamsRequest.encode({ paramsType: 'deposit' }).finish(),
                v1.QueryParamsResponse,
                'QueryParamsResponse',
                what,
              )
            ).depositParams?.maxDepositPeriod;
          return { votingPeriodMs: durationMs(votingPeriod, 'voting period', what), depositPeriodMs: durationMs(depositPeriod, 'deposit period', what), gov };
        }
        const path = '/cosmos.gov.v1beta1.Query/Params';
        const voting = await ask(
          path,
          v1beta1.QueryParamsRequest.encode({ paramsType: 'voting' }).finish(),
          v1beta1.QueryParamsResponse,
          'QueryParamsResponse',
          what,
        );
        const deposit = await ask(
          path,
          v1beta1.QueryParamsRequest.encode({ paramsType: 'deposit' }).finish(),
          v1beta1.QueryParamsResponse,
          'QueryParamsResponse',
          what,
        );
        return {
          votingPeriodMs: durationMs(voting.votingParams?.votingPeriod, 'voting period', what),
          depositPeriodMs: durationMs(deposit.depositParams?.maxDepositPeriod, 'deposit period', what),
          gov,
        };
      });
    },

    async vote(id, voter) {
      if (!/^\d{1,20}$/.test(id)) throw new TypeError(`a proposal id is a decimal number, not "${shownText(id, 40)}"`);
      const what = `the vote of ${shownText(voter, 100)} on proposal #${id}`;
      const request = { proposalId: BigInt(id), voter };
      try {
        return await eitherGov(async (gov) => {
          if (gov === 'v1') {
            const { vote } = await ask(
              '/cosmos.gov.v1.Query/Vote',
              v1.QueryVoteRequest.encode(request).finish(),
              v1.QueryVoteResponse,
              'QueryVoteResponse',
              what,
            );
            return choiceOf(vote?.options ?? [], 0, what);
          }
          const { vote } = await ask(
            '/cosmos.gov.v1beta1.Query/Vote',
            v1beta1.QueryVoteRequest.encode(request).finish(),
            v1beta1.QueryVoteResponse,
            'QueryVoteResponse',
            what,
          );
          return choiceOf(vote.options, vote.option, what);
        });
      } catch (error) {
        if (error instanceof ChainQueryError && notVoted(error)) return 'none';
        throw error;
      }
    },

    validatorByConsensusAddress: (address) => validatorByConsensusAddress(client, address),
  };

  function choiceOf(options: Array<{ option: number }>, legacy: number, what: string): VoteChoice {
    if (options.length > 1) return 'weighted';
    // v1beta1 votes cast before SDK v0.43 have only the single, deprecated `option`.
    const option = options[0]?.option ?? legacy;
    const choice = voteOptions[option];
    if (choice === undefined) throw refuse(what, `the vote option ${option} is none of yes (1), abstain (2), no (3), no with veto (4)`);
    return choice;
  }
}

const voteOptions: Record<number, VoteChoice> = { 1: 'yes', 2: 'abstain', 3: 'no', 4: 'no_with_veto' };

/**
 * No vote of this voter: NOT_FOUND (abci_query 22/38), or — as the SDK answers it (x/gov's Vote
 * query) — INVALID_ARGUMENT "voter: … not found for proposal: …" (abci_query 18).
 */
function notVoted(error: ChainQueryError): boolean {
  return error.kind === 'not-found' || (error.kind === 'failed' && /not found for proposal/i.test(error.said));
}
