/**
 * What the gov queries answer, before any encoding (x/gov/keeper/grpc_query.go of SDK v0.50): the checks
 * and their errors (`invalid request`, `proposal id can not be 0`, `proposal N doesn't exist`, …), the
 * filters and pagination. The protobuf services and the REST renderings are both built on these, so
 * gRPC, ABCI queries and REST agree.
 */
import { validators } from '../core/accounts.js';
import type { KVReader } from '../store/kv.js';
import { prefixed } from '../store/kv.js';
import { addressPrefix, bech32Decode } from '../util/bech32.js';
import { uint64BE } from '../util/bytes.js';
import type { Coin } from '../util/coins.js';
import { GrpcCode, StatusError, wrappedError } from '../util/errors.js';
import { type Entry, type PageRequest, type PageResponse, paginate } from './paginate.js';
import { allProposals, getDeposits, getParams, getProposal, getVotes, govStorePrefix, type StoredVote } from './state.js';
import { tally } from './tally.js';
import { emptyTally, fullWeight, type GovParams, type Proposal, proposalStatus, type TallyResult, type WeightedVoteOption } from './types.js';

/** The fields of the gov query requests (v1 and v1beta1 alike), as cosmjs-types decodes them. */
export interface GovRequest {
  proposalId?: bigint;
  voter?: string;
  depositor?: string;
  proposalStatus?: number;
  paramsType?: string;
  pagination?: PageRequest;
}

export interface VoteView {
  proposal_id: string;
  voter: string;
  options: WeightedVoteOption[];
  /**
   * v1beta1's deprecated `option`: on a v1beta1-only chain (SDK v0.43–0.45's populateLegacyOption) the
   * option of a vote that is not split, else UNSPECIFIED (always, from SDK v0.46 on).
   */
  legacy_option: string;
}

export interface DepositView {
  proposal_id: string;
  depositor: string;
  amount: Coin[];
}

export type ParamsType = '' | 'deposit' | 'voting' | 'tallying';

/** The order of ProposalStatus in the protobuf enum. */
export const statusNumbers: Readonly<Record<string, number>> = {
  PROPOSAL_STATUS_UNSPECIFIED: 0,
  [proposalStatus.depositPeriod]: 1,
  [proposalStatus.votingPeriod]: 2,
  [proposalStatus.passed]: 3,
  [proposalStatus.rejected]: 4,
  [proposalStatus.failed]: 5,
};

const invalidRequest = () => new StatusError(GrpcCode.invalidArgument, 'invalid request');

function proposalId(request: GovRequest | undefined): bigint {
  if (request === undefined) throw invalidRequest();
  const id = request.proposalId ?? 0n;
  if (id === 0n) throw new StatusError(GrpcCode.invalidArgument, 'proposal id can not be 0');
  return id;
}

/** The account address codec's StringToBytes (bech32, the chain's prefix). */
export function addressBytes(text: string): Buffer {
  if (text.trim() === '') throw new Error('empty address string is not allowed');
  const { hrp, bytes } = bech32Decode(text);
  if (hrp !== addressPrefix) {
    throw wrappedError('sdk', 35, 'internal logic error', `hrp does not match bech32 prefix: expected '${addressPrefix}' got '${hrp}'`);
  }
  return bytes;
}

/** A key of the (proposal id, address) collections (votes, deposits) under one proposal's prefix: the address bytes. */
const pairKey = (address: string) => addressBytes(address);

const byKey = <T>(entries: Array<Entry<T>>) => entries.sort((a, b) => Buffer.compare(a.key, b.key));

export function createGovViews(reader: () => KVReader) {
  const gov = () => prefixed(reader(), govStorePrefix);

  async function existing(id: bigint): Promise<Proposal> {
    const proposal = await getProposal(gov(), id.toString());
    if (proposal === undefined) throw new StatusError(GrpcCode.notFound, `proposal ${id} doesn't exist`);
    return proposal;
  }

  async function voteView(id: bigint, vote: StoredVote): Promise<VoteView> {
    const [only, ...others] = vote.options;
    const single = only !== undefined && others.length === 0 && only.weight === fullWeight;
    const legacy = single && (await getParams(gov())).v1beta1_only === true;
    return { proposal_id: id.toString(), voter: vote.voter, options: vote.options, legacy_option: legacy ? only.option : 'VOTE_OPTION_UNSPECIFIED' };
  }

  async function votesOf(id: bigint): Promise<Array<Entry<VoteView>>> {
    const votes = await getVotes(gov(), id.toString());
    return byKey(await Promise.all(votes.map(async (v) => ({ key: pairKey(v.voter), value: await voteView(id, v) }))));
  }

  async function depositsOf(id: bigint): Promise<Array<Entry<DepositView>>> {
    const deposits = await getDeposits(gov(), id.toString());
    return byKey(deposits.map((d) => ({ key: pairKey(d.depositor), value: { proposal_id: id.toString(), depositor: d.depositor, amount: d.amount } })));
  }

  /** CollectionPaginate over one proposal's entries: every error is codes.Internal. */
  function pageOf<T>(entries: Array<Entry<T>>, request: GovRequest) {
    try {
      return paginate(entries, request.pagination);
    } catch (error) {
      if (error instanceof StatusError) throw error;
      throw new StatusError(GrpcCode.internal, error instanceof Error ? error.message : String(error));
    }
  }

  return {
    async proposal(request: GovRequest | undefined): Promise<Proposal> {
      return existing(proposalId(request));
    },

    async proposals(request: GovRequest = {}): Promise<{ proposals: Proposal[]; pagination: PageResponse | null }> {
      const status = request.proposalStatus ?? 0;
      const entries = (await allProposals(gov())).map((p) => ({ key: uint64BE(BigInt(p.id)), value: p }));
      const voted = new Map<string, Set<string>>();
      const deposited = new Map<string, Set<string>>();
      for (const p of entries) {
        if (request.voter) voted.set(p.value.id, new Set((await getVotes(gov(), p.value.id)).map((v) => v.voter)));
        if (request.depositor) deposited.set(p.value.id, new Set((await getDeposits(gov(), p.value.id)).map((d) => d.depositor)));
      }
      const include = (p: Proposal) => {
        if (status >= 1 && status <= 5 && statusNumbers[p.status] !== status) return false;
        if (request.voter && (addressBytes(request.voter), !voted.get(p.id)?.has(request.voter))) return false;
        if (request.depositor && (addressBytes(request.depositor), !deposited.get(p.id)?.has(request.depositor))) return false;
        return true;
      };
      try {
        const { results, page } = paginate(entries, request.pagination, include);
        return { proposals: results, pagination: page };
      } catch (error) {
        if (error instanceof StatusError) throw error;
        throw new StatusError(GrpcCode.internal, error instanceof Error ? error.message : String(error));
      }
    },

    async vote(request: GovRequest | undefined): Promise<VoteView> {
      const id = proposalId(request);
      const voter = request?.voter ?? '';
      if (voter === '') throw new StatusError(GrpcCode.invalidArgument, 'empty voter address');
      addressBytes(voter);
      const vote = (await getVotes(gov(), id.toString())).find((v) => v.voter === voter);
      if (vote === undefined) throw new StatusError(GrpcCode.invalidArgument, `voter: ${voter} not found for proposal: ${id}`);
      return voteView(id, vote);
    },

    async votes(request: GovRequest | undefined): Promise<{ votes: VoteView[]; pagination: PageResponse }> {
      const id = proposalId(request);
      const { results, page } = pageOf(await votesOf(id), request as GovRequest);
      return { votes: results, pagination: page };
    },

    async params(request: GovRequest | undefined): Promise<{ params: GovParams; type: ParamsType }> {
      if (request === undefined) throw invalidRequest();
      const type = request.paramsType ?? '';
      if (type !== '' && type !== 'deposit' && type !== 'voting' && type !== 'tallying') {
        throw new StatusError(GrpcCode.invalidArgument, `unknown params type: ${type}`);
      }
      return { params: await getParams(gov()), type };
    },

    async deposit(request: GovRequest | undefined): Promise<DepositView> {
      const id = proposalId(request);
      const depositor = request?.depositor ?? '';
      if (depositor === '') throw new StatusError(GrpcCode.invalidArgument, 'empty depositor address');
      addressBytes(depositor);
      const deposit = (await getDeposits(gov(), id.toString())).find((d) => d.depositor === depositor);
      if (deposit === undefined) {
        throw new StatusError(
          GrpcCode.notFound,
          `collections: not found: key '("${id}", "${depositor}")' of type github.com/cosmos/gogoproto/cosmos.gov.v1.Deposit`,
        );
      }
      return { proposal_id: id.toString(), depositor, amount: deposit.amount };
    },

    async deposits(request: GovRequest | undefined): Promise<{ deposits: DepositView[]; pagination: PageResponse }> {
      const id = proposalId(request);
      const { results, page } = pageOf(await depositsOf(id), request as GovRequest);
      return { deposits: results, pagination: page };
    },

    /** Empty in the deposit period, the final tally once voting ended, the running tally during it. */
    async tallyResult(request: GovRequest | undefined): Promise<TallyResult> {
      const proposal = await existing(proposalId(request));
      switch (proposal.status) {
        case proposalStatus.depositPeriod:
          return emptyTally;
        case proposalStatus.passed:
        case proposalStatus.rejected:
        case proposalStatus.failed:
          return proposal.final_tally_result;
        default:
          return tally(await getVotes(gov(), proposal.id), await validators(reader()), await getParams(gov())).result;
      }
    },
  };
}

export type GovViews = ReturnType<typeof createGovViews>;
