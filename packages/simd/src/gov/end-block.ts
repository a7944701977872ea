/**
 * The gov end-blocker: drops proposals whose deposit period ended short of the minimum, tallies those
 * whose voting period ended, and executes the messages of passed ones — in a branch of the state, so a
 * failing message (an invalid plan) leaves nothing behind and marks the proposal failed while the chain
 * goes on.
 */
import { validators } from '../core/accounts.js';
import { event, type MsgContext, routeOf } from '../core/msg.js';
import { prefixed } from '../store/kv.js';
import { allProposals, deleteDeposits, deleteProposal, deleteVotes, getParams, getVotes, govStorePrefix, setProposal } from './state.js';
import { tally } from './tally.js';
import { type Proposal, proposalStatus } from './types.js';

export async function govEndBlock(ctx: MsgContext): Promise<void> {
  const gov = prefixed(ctx.state, govStorePrefix);
  for (const proposal of await allProposals(gov)) {
    if (proposal.status === proposalStatus.depositPeriod && Date.parse(proposal.deposit_end_time) <= ctx.timeMs) {
      await deleteProposal(gov, proposal.id);
      ctx.events.push(event('inactive_proposal', { proposal_id: proposal.id, proposal_result: 'proposal_dropped' }));
      ctx.log.info('proposal did not meet the minimum deposit and was deleted', { module: 'x/gov', proposal: proposal.id });
    } else if (proposal.status === proposalStatus.votingPeriod && proposal.voting_end_time !== null && Date.parse(proposal.voting_end_time) <= ctx.timeMs) {
      await finishVoting(ctx, proposal);
    }
  }
}

async function finishVoting(ctx: MsgContext, proposal: Proposal): Promise<void> {
  const gov = prefixed(ctx.state, govStorePrefix);
  const outcome = tally(await getVotes(gov, proposal.id), await validators(ctx.state), await getParams(gov));
  proposal.final_tally_result = outcome.result;
  if (!outcome.passes) {
    proposal.status = proposalStatus.rejected;
  } else {
    const branch = ctx.state.branch();
    const events = [...ctx.events];
    try {
      for (const msg of proposal.messages) {
        const route = routeOf(ctx, msg);
        if (route === undefined) throw new Error(`unrecognized message type ${msg['@type']}`);
        await route.execute({ ...ctx, state: branch, events }, msg);
      }
      branch.writeTo(ctx.state);
      ctx.events.splice(0, ctx.events.length, ...events);
      proposal.status = proposalStatus.passed;
    } catch (error) {
      // The SDK recovers from any failure of a proposal's messages: the proposal fails, the chain goes on.
      proposal.status = proposalStatus.failed;
      proposal.failed_reason = error instanceof Error ? error.message : String(error);
    }
  }
  // Votes are removed once tallied, and deposits refunded or burnt, as in x/gov.
  await deleteVotes(gov, proposal.id);
  await deleteDeposits(gov, proposal.id);
  setProposal(gov, proposal);
  const result = { passed: 'proposal_passed', failed: 'proposal_failed', rejected: 'proposal_rejected' } as const;
  const short = proposal.status === proposalStatus.passed ? 'passed' : proposal.status === proposalStatus.failed ? 'failed' : 'rejected';
  ctx.events.push(event('active_proposal', { proposal_id: proposal.id, proposal_result: result[short] }));
  ctx.log.info(`proposal ${short}`, {
    module: 'x/gov',
    proposal: proposal.id,
    reason: proposal.failed_reason || undefined,
  });
}
