/**
 * The gov messages: submit a proposal, deposit, vote (one option, or weighted). A proposal whose
 * deposit reaches the minimum enters its voting period at once; with `auto_vote` (a genesis option of
 * the simulation) the validators vote yes right then, so a proposal passes by itself when the voting
 * period ends.
 */
import { govAddress, validators } from '../core/accounts.js';
import { type AnyMsg, event, type MsgContext, type MsgRoute, routeOf } from '../core/msg.js';
import { prefixed } from '../store/kv.js';
import { addCoins, type Coin, coversCoins, formatCoins } from '../util/coins.js';
import { parseDuration } from '../util/duration.js';
import { invalidRequest, unauthorized } from '../util/errors.js';
import { inactiveProposal, invalidDepositDenom, invalidProposalContent, invalidProposalSigner, invalidVote, unknownProposal } from './errors.js';
import { addDeposit, getParams, getProposal, govStorePrefix, nextProposalId, setProposal, setVote } from './state.js';
import { emptyTally, fullWeight, type Proposal, proposalStatus, type VoteOption, voteOptions, type WeightedVoteOption } from './types.js';
import { checkWeightedOptions, type MsgVoteOption, optionsEventText } from './weighted-options.js';

export const msgSubmitProposalType = '/cosmos.gov.v1.MsgSubmitProposal';
export const msgVoteType = '/cosmos.gov.v1.MsgVote';
export const msgVoteWeightedType = '/cosmos.gov.v1.MsgVoteWeighted';
export const msgDepositType = '/cosmos.gov.v1.MsgDeposit';

const iso = (ms: number) => new Date(ms).toISOString();

function str(msg: AnyMsg, field: string): string {
  const value = msg[field];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw invalidRequest(`${msg['@type']}: field ${field} must be a string`);
  return value;
}

function coins(msg: AnyMsg, field: string): Coin[] {
  const value = msg[field] ?? [];
  if (!Array.isArray(value)) throw invalidRequest(`${msg['@type']}: field ${field} must be a list of coins`);
  return value.map((c: { denom?: unknown; amount?: unknown }) => {
    if (typeof c?.denom !== 'string' || typeof c.amount !== 'string' || !/^\d+$/.test(c.amount)) {
      throw invalidRequest(`${msg['@type']}: invalid coin in ${field}`);
    }
    return { denom: c.denom, amount: c.amount };
  });
}

async function checkDenoms(ctx: MsgContext, amount: readonly Coin[]): Promise<void> {
  const params = await getParams(prefixed(ctx.state, govStorePrefix));
  const accepted = params.min_deposit.map((c) => c.denom);
  const wrong = amount.filter((c) => !accepted.includes(c.denom));
  if (wrong.length > 0) {
    throw invalidDepositDenom(`deposited ${formatCoins(wrong)}, but gov accepts only the following denom(s): [${accepted.join(' ')}]`);
  }
}

/**
 * Moves a proposal whose deposit is complete into its voting period. The message that did it says so
 * with `<eventType>{voting_period_start: id}`, as x/gov's msg server of SDK v0.50.
 */
async function activateVoting(ctx: MsgContext, proposal: Proposal, eventType: 'submit_proposal' | 'proposal_deposit'): Promise<void> {
  const gov = prefixed(ctx.state, govStorePrefix);
  const params = await getParams(gov);
  proposal.status = proposalStatus.votingPeriod;
  proposal.voting_start_time = iso(ctx.timeMs);
  proposal.voting_end_time = iso(ctx.timeMs + parseDuration(params.voting_period, 'voting period'));
  ctx.events.push(event(eventType, { voting_period_start: proposal.id }));
  ctx.log.info('proposal entered its voting period', { module: 'x/gov', proposal: proposal.id, voting_end: proposal.voting_end_time });
  if (params.auto_vote) {
    for (const voter of (await validators(ctx.state)).keys()) {
      setVote(gov, proposal.id, voter, [{ option: 'VOTE_OPTION_YES', weight: fullWeight }]);
      ctx.log.info('validator voted yes automatically', { module: 'x/gov', proposal: proposal.id, voter });
    }
  }
}

async function activeProposal(ctx: MsgContext, msg: AnyMsg): Promise<Proposal> {
  const id = str(msg, 'proposal_id');
  if (!/^\d+$/.test(id)) throw invalidRequest(`invalid proposal id ${JSON.stringify(id)}`);
  const proposal = await getProposal(prefixed(ctx.state, govStorePrefix), id);
  if (proposal === undefined) throw unknownProposal(id);
  return proposal;
}

const submitProposal: MsgRoute = {
  signer: (msg) => str(msg, 'proposer'),
  async execute(ctx, msg) {
    const messages = msg.messages ?? [];
    if (!Array.isArray(messages)) throw invalidRequest('messages must be a list');
    const title = str(msg, 'title');
    if (title.trim() === '') throw invalidProposalContent('proposal title cannot be empty');
    for (const inner of messages as AnyMsg[]) {
      const route = routeOf(ctx, inner);
      if (route === undefined) throw invalidProposalContent(`unrecognized message type ${JSON.stringify(inner?.['@type'])}`);
      const signer = route.signer(inner);
      if (signer !== govAddress) throw invalidProposalSigner(signer);
    }
    const deposit = coins(msg, 'initial_deposit');
    await checkDenoms(ctx, deposit);
    const gov = prefixed(ctx.state, govStorePrefix);
    const params = await getParams(gov);
    const id = String(await nextProposalId(gov));
    const proposal: Proposal = {
      id,
      messages: messages as AnyMsg[],
      status: proposalStatus.depositPeriod,
      final_tally_result: emptyTally,
      submit_time: iso(ctx.timeMs),
      deposit_end_time: iso(ctx.timeMs + parseDuration(params.max_deposit_period, 'deposit period')),
      total_deposit: addCoins([], deposit),
      voting_start_time: null,
      voting_end_time: null,
      metadata: str(msg, 'metadata'),
      title,
      summary: str(msg, 'summary'),
      proposer: str(msg, 'proposer'),
      expedited: false,
      failed_reason: '',
    };
    ctx.events.push(
      event('submit_proposal', {
        proposal_id: id,
        proposal_messages: `,${proposal.messages.map((m) => m['@type']).join(',')}`,
      }),
    );
    ctx.log.info('proposal submitted', { module: 'x/gov', proposal: id, deposit: formatCoins(proposal.total_deposit) || '0' });
    await addDeposit(gov, id, proposal.proposer, deposit);
    if (coversCoins(proposal.total_deposit, params.min_deposit)) await activateVoting(ctx, proposal, 'submit_proposal');
    setProposal(gov, proposal);
  },
};

const deposit: MsgRoute = {
  signer: (msg) => str(msg, 'depositor'),
  async execute(ctx, msg) {
    const proposal = await activeProposal(ctx, msg);
    if (proposal.status !== proposalStatus.depositPeriod && proposal.status !== proposalStatus.votingPeriod) {
      throw inactiveProposal(proposal.id);
    }
    const amount = coins(msg, 'amount');
    await checkDenoms(ctx, amount);
    proposal.total_deposit = addCoins(proposal.total_deposit, amount);
    await addDeposit(prefixed(ctx.state, govStorePrefix), proposal.id, str(msg, 'depositor'), amount);
    ctx.events.push(event('proposal_deposit', { proposal_id: proposal.id, amount: formatCoins(amount) }));
    const params = await getParams(prefixed(ctx.state, govStorePrefix));
    if (proposal.status === proposalStatus.depositPeriod && coversCoins(proposal.total_deposit, params.min_deposit)) {
      await activateVoting(ctx, proposal, 'proposal_deposit');
    }
    setProposal(prefixed(ctx.state, govStorePrefix), proposal);
  },
};

/** x/gov's AddVote: the proposal must be in its voting period; the vote replaces the voter's last one. */
async function addVote(ctx: MsgContext, msg: AnyMsg, options: () => WeightedVoteOption[]): Promise<void> {
  const proposal = await activeProposal(ctx, msg);
  if (proposal.status !== proposalStatus.votingPeriod) throw inactiveProposal(proposal.id);
  const checked = options();
  const voter = str(msg, 'voter');
  if (voter === '') throw unauthorized('missing voter address');
  setVote(prefixed(ctx.state, govStorePrefix), proposal.id, voter, checked);
  ctx.events.push(event('proposal_vote', { voter, option: optionsEventText(checked), proposal_id: proposal.id }));
}

const vote: MsgRoute = {
  signer: (msg) => str(msg, 'voter'),
  execute: (ctx, msg) =>
    addVote(ctx, msg, () => {
      const option = str(msg, 'option');
      if (!voteOptions.includes(option as VoteOption)) throw invalidVote(`invalid vote option ${JSON.stringify(option)}`);
      return [{ option: option as VoteOption, weight: fullWeight }];
    }),
};

/** The options of a weighted vote message, as JSON: `[{option, weight}]`. */
export function msgVoteOptions(msg: AnyMsg): MsgVoteOption[] {
  const value = msg.options ?? [];
  if (!Array.isArray(value)) throw invalidRequest(`${msg['@type']}: field options must be a list`);
  return value.map((o: { option?: unknown; weight?: unknown }) => ({
    option: typeof o?.option === 'string' ? o.option : 'VOTE_OPTION_UNSPECIFIED',
    weight: typeof o?.weight === 'string' ? o.weight : '',
  }));
}

/** The msg server's VoteWeighted checks the options before the proposal (SDK v0.50). */
const voteWeighted: MsgRoute = {
  signer: (msg) => str(msg, 'voter'),
  async execute(ctx, msg) {
    const options = checkWeightedOptions(msgVoteOptions(msg), 'v1');
    await addVote(ctx, msg, () => options);
  },
};

export const govRoutes: Readonly<Record<string, MsgRoute>> = {
  [msgSubmitProposalType]: submitProposal,
  [msgDepositType]: deposit,
  [msgVoteType]: vote,
  [msgVoteWeightedType]: voteWeighted,
};
