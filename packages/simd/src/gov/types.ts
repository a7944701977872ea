/** Governance data (x/gov v1), kept as the JSON shapes the queries return. */
import type { AnyMsg } from '../core/msg.js';
import type { Coin } from '../util/coins.js';

export const proposalStatus = {
  depositPeriod: 'PROPOSAL_STATUS_DEPOSIT_PERIOD',
  votingPeriod: 'PROPOSAL_STATUS_VOTING_PERIOD',
  passed: 'PROPOSAL_STATUS_PASSED',
  rejected: 'PROPOSAL_STATUS_REJECTED',
  failed: 'PROPOSAL_STATUS_FAILED',
} as const;
export type ProposalStatus = (typeof proposalStatus)[keyof typeof proposalStatus];

export const voteOptions = ['VOTE_OPTION_YES', 'VOTE_OPTION_ABSTAIN', 'VOTE_OPTION_NO', 'VOTE_OPTION_NO_WITH_VETO'] as const;
export type VoteOption = (typeof voteOptions)[number];

/** One option of a vote with its share of the voter's power: a LegacyDec text, `0.600000000000000000`. */
export interface WeightedVoteOption {
  option: VoteOption;
  weight: string;
}

/** The weight of a vote that is not split (LegacyDec 1). */
export const fullWeight = '1.000000000000000000';

export interface TallyResult {
  yes_count: string;
  abstain_count: string;
  no_count: string;
  no_with_veto_count: string;
}

export interface Proposal {
  id: string;
  messages: AnyMsg[];
  status: ProposalStatus;
  final_tally_result: TallyResult;
  submit_time: string;
  deposit_end_time: string;
  total_deposit: Coin[];
  voting_start_time: string | null;
  voting_end_time: string | null;
  metadata: string;
  title: string;
  summary: string;
  proposer: string;
  expedited: boolean;
  /** Why the proposal's messages failed when it passed (x/gov v1 of SDK 0.50). */
  failed_reason: string;
}

export interface GovParams {
  min_deposit: Coin[];
  /** Go duration. */
  max_deposit_period: string;
  /** Go duration. */
  voting_period: string;
  quorum: string;
  threshold: string;
  veto_threshold: string;
  /** Simulation only: genesis validators vote yes on every proposal as soon as its voting starts. */
  auto_vote: boolean;
  /** Simulation only: the node serves gov v1beta1 alone (gRPC, ABCI, REST), as a chain before SDK v0.46. */
  v1beta1_only?: boolean;
}

export const emptyTally: TallyResult = { yes_count: '0', abstain_count: '0', no_count: '0', no_with_veto_count: '0' };
