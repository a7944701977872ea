/**
 * The gov query services, `cosmos.gov.v1.Query` and the legacy `cosmos.gov.v1beta1.Query` (what CosmJS's
 * setupGovExtension calls), on protobuf bytes with the messages of cosmjs-types; and the same answers as
 * grpc-gateway JSON under the node's own query paths `/sim/gov/v1/<Method>` and `/sim/gov/v1beta1/<Method>`
 * (JSON in and out), which REST serves.
 */
import * as q1 from 'cosmjs-types/cosmos/gov/v1/query.js';
import * as q1beta1 from 'cosmjs-types/cosmos/gov/v1beta1/query.js';

import type { ProtoHandler } from '../core/query.js';
import type { KVReader } from '../store/kv.js';
import { decodeRequest, GrpcCode, StatusError } from '../util/errors.js';
import * as gw from './gateway.js';
import { pageRequestFromJson, type PageRequestJson } from './paginate.js';
import * as pb from './proto.js';
import { createGovViews, type GovRequest, type GovViews, type ParamsType, statusNumbers, type VoteView } from './query-views.js';
import type { Proposal } from './types.js';

export const govV1Service = 'cosmos.gov.v1.Query';
export const govV1beta1Service = 'cosmos.gov.v1beta1.Query';

/** v1beta1 Params needs one of the three legacy sections. */
function legacyType(type: ParamsType): ParamsType {
  if (type === '') throw new StatusError(GrpcCode.invalidArgument, `${type} is not a valid parameter type`);
  return type;
}

function v1Handlers(views: GovViews): Record<string, ProtoHandler> {
  return {
    // SDK v0.50: the chain's constitution, empty in the simulation (a QueryConstitutionResponse with no field set).
    async Constitution() {
      return new Uint8Array();
    },
    async Proposal(bytes) {
      const proposal = await views.proposal(decodeRequest(q1.QueryProposalRequest, bytes));
      return pb.appendMessage(q1.QueryProposalResponse.encode({}), 1, pb.proposalV1Bytes(proposal)).finish();
    },
    async Proposals(bytes) {
      const { proposals, pagination } = await views.proposals(decodeRequest(q1.QueryProposalsRequest, bytes));
      const writer = q1.QueryProposalsResponse.encode({ proposals: [], pagination: pb.pageProto(pagination) });
      for (const proposal of proposals) pb.appendMessage(writer, 1, pb.proposalV1Bytes(proposal));
      return writer.finish();
    },
    async Vote(bytes) {
      const vote = await views.vote(decodeRequest(q1.QueryVoteRequest, bytes));
      return q1.QueryVoteResponse.encode({ vote: pb.voteV1(vote) }).finish();
    },
    async Votes(bytes) {
      const { votes, pagination } = await views.votes(decodeRequest(q1.QueryVotesRequest, bytes));
      return q1.QueryVotesResponse.encode({ votes: votes.map(pb.voteV1), pagination: pb.pageProto(pagination) }).finish();
    },
    async Params(bytes) {
      const { params, type } = await views.params(decodeRequest(q1.QueryParamsRequest, bytes));
      return pb.appendMessage(q1.QueryParamsResponse.encode(pb.legacyParamsV1(params, type)), 4, pb.paramsV1Bytes(params)).finish();
    },
    async Deposit(bytes) {
      const deposit = await views.deposit(decodeRequest(q1.QueryDepositRequest, bytes));
      return q1.QueryDepositResponse.encode({ deposit: pb.depositProto(deposit) }).finish();
    },
    async Deposits(bytes) {
      const { deposits, pagination } = await views.deposits(decodeRequest(q1.QueryDepositsRequest, bytes));
      return q1.QueryDepositsResponse.encode({ deposits: deposits.map(pb.depositProto), pagination: pb.pageProto(pagination) }).finish();
    },
    async TallyResult(bytes) {
      const tally = await views.tallyResult(decodeRequest(q1.QueryTallyResultRequest, bytes));
      return q1.QueryTallyResultResponse.encode({ tally: pb.tallyV1(tally) }).finish();
    },
  };
}

function v1beta1Handlers(views: GovViews): Record<string, ProtoHandler> {
  return {
    async Proposal(bytes) {
      const proposal = await views.proposal(decodeRequest(q1beta1.QueryProposalRequest, bytes));
      return q1beta1.QueryProposalResponse.encode({ proposal: pb.proposalV1beta1(proposal) }).finish();
    },
    async Proposals(bytes) {
      const { proposals, pagination } = await views.proposals(decodeRequest(q1beta1.QueryProposalsRequest, bytes));
      return q1beta1.QueryProposalsResponse.encode({ proposals: proposals.map(pb.proposalV1beta1), pagination: pb.pageProto(pagination) }).finish();
    },
    async Vote(bytes) {
      const vote = await views.vote(decodeRequest(q1beta1.QueryVoteRequest, bytes));
      return q1beta1.QueryVoteResponse.encode({ vote: pb.voteV1beta1(vote) }).finish();
    },
    async Votes(bytes) {
      const { votes, pagination } = await views.votes(decodeRequest(q1beta1.QueryVotesRequest, bytes));
      return q1beta1.QueryVotesResponse.encode({ votes: votes.map(pb.voteV1beta1), pagination: pb.pageProto(pagination) }).finish();
    },
    async Params(bytes) {
      const { params, type } = await views.params(decodeRequest(q1beta1.QueryParamsRequest, bytes));
      return q1beta1.QueryParamsResponse.encode(pb.legacyParamsV1beta1(params, legacyType(type))).finish();
    },
    async Deposit(bytes) {
      const deposit = await views.deposit(decodeRequest(q1beta1.QueryDepositRequest, bytes));
      return q1beta1.QueryDepositResponse.encode({ deposit: pb.depositProto(deposit) }).finish();
    },
    async Deposits(bytes) {
      const { deposits, pagination } = await views.deposits(decodeRequest(q1beta1.QueryDepositsRequest, bytes));
      return q1beta1.QueryDepositsResponse.encode({ deposits: deposits.map(pb.depositProto), pagination: pb.pageProto(pagination) }).finish();
    },
    async TallyResult(bytes) {
      const tally = await views.tallyResult(decodeRequest(q1beta1.QueryTallyResultRequest, bytes));
      return q1beta1.QueryTallyResultResponse.encode({ tally: pb.tallyV1beta1(tally) }).finish();
    },
  };
}

export function govQueries(reader: () => KVReader): Record<string, Record<string, ProtoHandler>> {
  const views = createGovViews(reader);
  return { [govV1Service]: v1Handlers(views), [govV1beta1Service]: v1beta1Handlers(views) };
}

/** A gov request in JSON (the REST parameters): 64-bit integers as strings, the page key in base64. */
export interface GovRequestJson {
  proposal_id?: string;
  voter?: string;
  depositor?: string;
  proposal_status?: string;
  params_type?: string;
  pagination?: PageRequestJson;
}

function fromJson(json: GovRequestJson): GovRequest {
  const pagination = pageRequestFromJson(json.pagination);
  return {
    proposalId: BigInt(json.proposal_id ?? '0'),
    voter: json.voter ?? '',
    depositor: json.depositor ?? '',
    proposalStatus: statusNumbers[json.proposal_status ?? ''] ?? Number(json.proposal_status ?? 0),
    paramsType: json.params_type ?? '',
    pagination,
  };
}

type JsonHandler = (request: Record<string, unknown>) => Promise<unknown>;

/** The JSON query paths REST uses: `/sim/gov/<version>/<Method>` → grpc-gateway JSON. */
export function govGatewayQueries(reader: () => KVReader): Record<string, JsonHandler> {
  const views = createGovViews(reader);
  const r = (request: Record<string, unknown>) => fromJson(request);
  const common = (version: 'v1' | 'v1beta1'): Record<string, JsonHandler> => {
    const proposal: (p: Proposal) => unknown = version === 'v1' ? gw.proposalV1Json : gw.proposalV1beta1Json;
    const vote: (v: VoteView) => unknown = version === 'v1' ? gw.voteV1Json : gw.voteV1beta1Json;
    return {
      Proposal: async (q) => ({ proposal: proposal(await views.proposal(r(q))) }),
      Proposals: async (q) => {
        const { proposals, pagination } = await views.proposals(r(q));
        return { proposals: proposals.map(proposal), pagination: gw.pageJson(pagination) };
      },
      Vote: async (q) => ({ vote: vote(await views.vote(r(q))) }),
      Votes: async (q) => {
        const { votes, pagination } = await views.votes(r(q));
        return { votes: votes.map(vote), pagination: gw.pageJson(pagination) };
      },
      Deposit: async (q) => ({ deposit: gw.depositJson(await views.deposit(r(q))) }),
      Deposits: async (q) => {
        const { deposits, pagination } = await views.deposits(r(q));
        return { deposits: deposits.map(gw.depositJson), pagination: gw.pageJson(pagination) };
      },
      TallyResult: async (q) => {
        const tally = await views.tallyResult(r(q));
        return { tally: version === 'v1' ? tally : gw.tallyV1beta1Json(tally) };
      },
      Params: async (q) => {
        const { params, type } = await views.params(r(q));
        return version === 'v1'
          ? { ...gw.legacyParamsV1Json(params, type), params: gw.paramsV1Json(params) }
          : gw.legacyParamsV1beta1Json(params, legacyType(type));
      },
    };
  };
  const handlers: Record<string, JsonHandler> = {};
  for (const version of ['v1', 'v1beta1'] as const) {
    for (const [method, handler] of Object.entries(common(version))) handlers[`/sim/gov/${version}/${method}`] = handler;
  }
  handlers['/sim/gov/v1/Constitution'] = async () => ({ constitution: '' });
  return handlers;
}
