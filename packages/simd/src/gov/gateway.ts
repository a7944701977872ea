/**
 * The gov answers as grpc-gateway JSON (what REST serves): field names as in the .proto files, 64-bit
 * integers as strings, every field present (EmitDefaults), unset messages as null, messages of a
 * proposal with their `@type`. Fields of SDK v0.50's gov v1 (expedited, failed_reason, the expedited
 * and cancel params) are included with the node's values.
 */
import { durationJson, legacyDec, timestampJson, zeroTime } from './encoding.js';
import { legacyContentOf } from './legacy-codecs.js';
import { messageJson } from './messages.js';
import type { PageResponse } from './paginate.js';
import type { DepositView, ParamsType, VoteView } from './query-views.js';
import type { GovParams, Proposal, TallyResult } from './types.js';

const time = (iso: string | null) => (iso === null ? null : timestampJson(iso));

export function pageJson(page: PageResponse | null) {
  return page === null ? null : { next_key: page.nextKey === null ? null : page.nextKey.toString('base64'), total: page.total.toString() };
}

export function proposalV1Json(p: Proposal) {
  return {
    id: p.id,
    messages: p.messages.map(messageJson),
    status: p.status,
    final_tally_result: p.final_tally_result,
    submit_time: time(p.submit_time),
    deposit_end_time: time(p.deposit_end_time),
    total_deposit: p.total_deposit,
    voting_start_time: time(p.voting_start_time),
    voting_end_time: time(p.voting_end_time),
    metadata: p.metadata,
    title: p.title,
    summary: p.summary,
    proposer: p.proposer,
    expedited: p.expedited,
    failed_reason: p.failed_reason,
  };
}

export function tallyV1beta1Json(t: TallyResult) {
  return { yes: t.yes_count, abstain: t.abstain_count, no: t.no_count, no_with_veto: t.no_with_veto_count };
}

export function proposalV1beta1Json(p: Proposal) {
  const first = legacyContentOf(p.messages);
  return {
    proposal_id: p.id,
    content: first === undefined ? null : messageJson(first),
    status: p.status,
    final_tally_result: tallyV1beta1Json(p.final_tally_result),
    submit_time: time(p.submit_time) ?? zeroTime.json,
    deposit_end_time: time(p.deposit_end_time) ?? zeroTime.json,
    total_deposit: p.total_deposit,
    voting_start_time: time(p.voting_start_time) ?? zeroTime.json,
    voting_end_time: time(p.voting_end_time) ?? zeroTime.json,
  };
}

export function voteV1Json(v: VoteView) {
  return { proposal_id: v.proposal_id, voter: v.voter, options: v.options, metadata: '' };
}

export function voteV1beta1Json(v: VoteView) {
  return {
    proposal_id: v.proposal_id,
    voter: v.voter,
    option: v.legacy_option,
    options: v.options.map((o) => ({ option: o.option, weight: legacyDec(o.weight) })),
  };
}

export const depositJson = (d: DepositView) => ({ proposal_id: d.proposal_id, depositor: d.depositor, amount: d.amount });

export function paramsV1Json(p: GovParams) {
  const denom = p.min_deposit[0]?.denom ?? 'stake';
  return {
    min_deposit: p.min_deposit,
    max_deposit_period: durationJson(p.max_deposit_period),
    voting_period: durationJson(p.voting_period),
    quorum: legacyDec(p.quorum),
    threshold: legacyDec(p.threshold),
    veto_threshold: legacyDec(p.veto_threshold),
    min_initial_deposit_ratio: legacyDec('0'),
    proposal_cancel_ratio: legacyDec('0.5'),
    proposal_cancel_dest: '',
    expedited_voting_period: '86400s',
    expedited_threshold: legacyDec('0.667'),
    expedited_min_deposit: [{ denom, amount: '50000000' }],
    burn_vote_quorum: false,
    burn_proposal_deposit_prevote: false,
    burn_vote_veto: true,
    min_deposit_ratio: legacyDec('0.01'),
  };
}

export function legacyParamsV1Json(p: GovParams, type: ParamsType) {
  return {
    voting_params: type === 'voting' ? { voting_period: durationJson(p.voting_period) } : null,
    deposit_params: type === 'deposit' ? { min_deposit: p.min_deposit, max_deposit_period: durationJson(p.max_deposit_period) } : null,
    tally_params: type === 'tallying' ? { quorum: legacyDec(p.quorum), threshold: legacyDec(p.threshold), veto_threshold: legacyDec(p.veto_threshold) } : null,
  };
}

export function legacyParamsV1beta1Json(p: GovParams, type: ParamsType) {
  const zeroDec = legacyDec('0');
  return {
    voting_params: { voting_period: type === 'voting' ? durationJson(p.voting_period) : '0s' },
    deposit_params:
      type === 'deposit'
        ? { min_deposit: p.min_deposit, max_deposit_period: durationJson(p.max_deposit_period) }
        : { min_deposit: [], max_deposit_period: '0s' },
    tally_params:
      type === 'tallying'
        ? { quorum: legacyDec(p.quorum), threshold: legacyDec(p.threshold), veto_threshold: legacyDec(p.veto_threshold) }
        : { quorum: zeroDec, threshold: zeroDec, veto_threshold: zeroDec },
  };
}
