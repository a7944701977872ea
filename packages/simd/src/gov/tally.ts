/** Tallying a proposal: votes weighted by validator power, with quorum, veto and threshold (x/gov v1). */
import type { GovParams, TallyResult, VoteOption } from './types.js';

export interface TallyOutcome {
  passes: boolean;
  result: TallyResult;
}

export function tally(votes: ReadonlyArray<{ voter: string; option: VoteOption }>, powers: ReadonlyMap<string, number>, params: GovParams): TallyOutcome {
  const sum: Record<VoteOption, number> = {
    VOTE_OPTION_YES: 0,
    VOTE_OPTION_ABSTAIN: 0,
    VOTE_OPTION_NO: 0,
    VOTE_OPTION_NO_WITH_VETO: 0,
  };
  // Accounts without a validator carry no voting power (the simulation has no delegations).
  for (const { voter, option } of votes) sum[option] += powers.get(voter) ?? 0;
  const result: TallyResult = {
    yes_count: String(sum.VOTE_OPTION_YES),
    abstain_count: String(sum.VOTE_OPTION_ABSTAIN),
    no_count: String(sum.VOTE_OPTION_NO),
    no_with_veto_count: String(sum.VOTE_OPTION_NO_WITH_VETO),
  };
  const bonded = [...powers.values()].reduce((a, b) => a + b, 0);
  const voted = Object.values(sum).reduce((a, b) => a + b, 0);
  const fails = { passes: false, result };
  if (bonded === 0 || voted / bonded < Number(params.quorum)) return fails;
  if (voted === sum.VOTE_OPTION_ABSTAIN) return fails;
  if (sum.VOTE_OPTION_NO_WITH_VETO / voted > Number(params.veto_threshold)) return fails;
  const passes = sum.VOTE_OPTION_YES / (voted - sum.VOTE_OPTION_ABSTAIN) > Number(params.threshold);
  return { passes, result };
}
