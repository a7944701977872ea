/**
 * The gov data as the protobuf messages of cosmjs-types: `cosmos.gov.v1` and the legacy `cosmos.gov.v1beta1`
 * (the SDK's v3 conversion: the legacy content, else the first message, as `content`; unset times as
 * Go's zero time, decimals as their 10¹⁸ integers). cosmjs-types 0.9 has SDK 0.47's gov v1; the fields v0.50 added to Proposal and
 * Params are appended to those messages' bytes under their v0.50 field numbers, so clients built with
 * v0.50's protos read them and older ones skip them.
 */
import type { BinaryWriter } from 'cosmjs-types/binary.js';
import type { PageResponse as PageResponseProto } from 'cosmjs-types/cosmos/base/query/v1beta1/pagination.js';
import { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin.js';
import * as v1 from 'cosmjs-types/cosmos/gov/v1/gov.js';
import * as v1beta1 from 'cosmjs-types/cosmos/gov/v1beta1/gov.js';
import { Duration } from 'cosmjs-types/google/protobuf/duration.js';

import { durationProto, legacyDec, legacyDecAtomics, timestampProto, zeroTime } from './encoding.js';
import { legacyContentOf } from './legacy-codecs.js';
import { messageToAny } from './messages.js';
import type { PageResponse } from './paginate.js';
import type { DepositView, ParamsType, VoteView } from './query-views.js';
import { statusNumbers } from './query-views.js';
import type { GovParams, Proposal, TallyResult } from './types.js';

const time = (iso: string | null) => (iso === null ? undefined : timestampProto(iso));

export function pageProto(page: PageResponse | null): PageResponseProto | undefined {
  return page === null ? undefined : { nextKey: page.nextKey ?? new Uint8Array(), total: page.total };
}

export function tallyV1(t: TallyResult): v1.TallyResult {
  return { yesCount: t.yes_count, abstainCount: t.abstain_count, noCount: t.no_count, noWithVetoCount: t.no_with_veto_count };
}

export function tallyV1beta1(t: TallyResult): v1beta1.TallyResult {
  return { yes: t.yes_count, abstain: t.abstain_count, no: t.no_count, noWithVeto: t.no_with_veto_count };
}

export function proposalV1(p: Proposal): v1.Proposal {
  return v1.Proposal.fromPartial({
    id: BigInt(p.id),
    messages: p.messages.map(messageToAny),
    status: statusNumbers[p.status] ?? 0,
    finalTallyResult: tallyV1(p.final_tally_result),
    submitTime: time(p.submit_time),
    depositEndTime: time(p.deposit_end_time),
    totalDeposit: p.total_deposit,
    votingStartTime: time(p.voting_start_time),
    votingEndTime: time(p.voting_end_time),
    metadata: p.metadata,
    title: p.title,
    summary: p.summary,
    proposer: p.proposer,
  });
}

export function proposalV1beta1(p: Proposal): v1beta1.Proposal {
  const first = legacyContentOf(p.messages);
  return v1beta1.Proposal.fromPartial({
    proposalId: BigInt(p.id),
    content: first === undefined ? undefined : messageToAny(first),
    status: statusNumbers[p.status] ?? 0,
    finalTallyResult: tallyV1beta1(p.final_tally_result),
    submitTime: time(p.submit_time) ?? zeroTime.proto,
    depositEndTime: time(p.deposit_end_time) ?? zeroTime.proto,
    totalDeposit: p.total_deposit,
    votingStartTime: time(p.voting_start_time) ?? zeroTime.proto,
    votingEndTime: time(p.voting_end_time) ?? zeroTime.proto,
  });
}

export function voteV1(v: VoteView): v1.Vote {
  return {
    proposalId: BigInt(v.proposal_id),
    voter: v.voter,
    options: v.options.map((o) => ({ option: v1.voteOptionFromJSON(o.option), weight: o.weight })),
    metadata: '',
  };
}

export function voteV1beta1(v: VoteView): v1beta1.Vote {
  return {
    proposalId: BigInt(v.proposal_id),
    voter: v.voter,
    option: v1beta1.voteOptionFromJSON(v.legacy_option),
    options: v.options.map((o) => ({ option: v1beta1.voteOptionFromJSON(o.option), weight: legacyDecAtomics(o.weight) })),
  };
}

export function depositProto(d: DepositView): v1.Deposit {
  return { proposalId: BigInt(d.proposal_id), depositor: d.depositor, amount: d.amount };
}

export function paramsV1(p: GovParams): v1.Params {
  return v1.Params.fromPartial({
    minDeposit: p.min_deposit,
    maxDepositPeriod: durationProto(p.max_deposit_period),
    votingPeriod: durationProto(p.voting_period),
    quorum: legacyDec(p.quorum),
    threshold: legacyDec(p.threshold),
    vetoThreshold: legacyDec(p.veto_threshold),
    minInitialDepositRatio: legacyDec('0'),
    burnVoteQuorum: false,
    burnProposalDepositPrevote: false,
    burnVoteVeto: true,
  });
}

/** The legacy sections of a Params answer: the one named by `type` (all three stay unset for ''). */
export function legacyParamsV1(p: GovParams, type: ParamsType) {
  return {
    votingParams: type === 'voting' ? { votingPeriod: durationProto(p.voting_period) } : undefined,
    depositParams: type === 'deposit' ? { minDeposit: p.min_deposit, maxDepositPeriod: durationProto(p.max_deposit_period) } : undefined,
    tallyParams:
      type === 'tallying' ? { quorum: legacyDec(p.quorum), threshold: legacyDec(p.threshold), vetoThreshold: legacyDec(p.veto_threshold) } : undefined,
  };
}

export function legacyParamsV1beta1(p: GovParams, type: ParamsType) {
  const zero = { seconds: 0n, nanos: 0 };
  const dec = (text: string) => Buffer.from(legacyDecAtomics(text));
  return {
    votingParams: { votingPeriod: type === 'voting' ? durationProto(p.voting_period) : zero },
    depositParams:
      type === 'deposit' ? { minDeposit: p.min_deposit, maxDepositPeriod: durationProto(p.max_deposit_period) } : { minDeposit: [], maxDepositPeriod: zero },
    tallyParams:
      type === 'tallying'
        ? { quorum: dec(p.quorum), threshold: dec(p.threshold), vetoThreshold: dec(p.veto_threshold) }
        : { quorum: new Uint8Array(), threshold: new Uint8Array(), vetoThreshold: new Uint8Array() },
  };
}

/** A v1 Proposal's bytes, with v0.50's `expedited` (14) and `failed_reason` (15) when set. */
export function proposalV1Bytes(p: Proposal): Uint8Array {
  const writer = v1.Proposal.encode(proposalV1(p));
  if (p.expedited) writer.uint32((14 << 3) | 0).bool(true);
  if (p.failed_reason !== '') writer.uint32((15 << 3) | 2).string(p.failed_reason);
  return writer.finish();
}

/**
 * A v1 Params' bytes, with v0.50's fields at their defaults: proposal_cancel_ratio (8), expedited_voting_period
 * (10), expedited_threshold (11), expedited_min_deposit (12), min_deposit_ratio (16).
 */
export function paramsV1Bytes(p: GovParams): Uint8Array {
  const writer = v1.Params.encode(paramsV1(p));
  writer.uint32(66).string(legacyDec('0.5'));
  Duration.encode({ seconds: 86_400n, nanos: 0 }, writer.uint32(82).fork()).ldelim();
  writer.uint32(90).string(legacyDec('0.667'));
  Coin.encode({ denom: p.min_deposit[0]?.denom ?? 'stake', amount: '50000000' }, writer.uint32(98).fork()).ldelim();
  writer.uint32(130).string(legacyDec('0.01'));
  return writer.finish();
}

/** Appends `bytes` as the length-delimited field `field` of the message being written. */
export function appendMessage(writer: BinaryWriter, field: number, bytes: Uint8Array): BinaryWriter {
  return writer.uint32((field << 3) | 2).bytes(bytes);
}
