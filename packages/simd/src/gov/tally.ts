/**
 * Tallying a proposal (x/gov v1's keeper/tally.go): each voter's power split over its options by their
 * weights, with quorum, veto and threshold. Sums are kept exactly, as LegacyDec values × 10¹⁸, and each
 * count is truncated to an integer at the end, as the SDK's TruncateInt.
 */
import { legacyDecAtomics, parseLegacyDec } from './encoding.js';
import type { StoredVote } from './state.js';
import type { GovParams, TallyResult, VoteOption } from './types.js';

export interface TallyOutcome {
  passes: boolean;
  result: TallyResult;
}

const one = 10n ** 18n;

export function tally(votes: readonly StoredVote[], powers: ReadonlyMap<string, number>, params: GovParams): TallyOutcome {
  const sum: Record<VoteOption, bigint> = {
    VOTE_OPTION_YES: 0n,
    VOTE_OPTION_ABSTAIN: 0n,
    VOTE_OPTION_NO: 0n,
    VOTE_OPTION_NO_WITH_VETO: 0n,
  };
  let voted = 0n;
  // Accounts without a validator carry no voting power (the simulation has no delegations).
  for (const { voter, options } of votes) {
    const power = BigInt(powers.get(voter) ?? 0);
    if (power === 0n) continue;
    for (const { option, weight } of options) sum[option] += power * parseLegacyDec(weight);
    voted += power * one;
  }
  const count = (value: bigint) => String(value / one);
  const result: TallyResult = {
    yes_count: count(sum.VOTE_OPTION_YES),
    abstain_count: count(sum.VOTE_OPTION_ABSTAIN),
    no_count: count(sum.VOTE_OPTION_NO),
    no_with_veto_count: count(sum.VOTE_OPTION_NO_WITH_VETO),
  };
  const bonded = [...powers.values()].reduce((a, b) => a + BigInt(b), 0n);
  const dec = (text: string) => BigInt(legacyDecAtomics(text));
  const fails = { passes: false, result };
  // voted / (bonded × 10¹⁸) < quorum, and the other ratios, compared without dividing.
  if (bonded === 0n || voted < dec(params.quorum) * bonded) return fails;
  const notAbstaining = voted - sum.VOTE_OPTION_ABSTAIN;
  if (notAbstaining === 0n) return fails;
  if (sum.VOTE_OPTION_NO_WITH_VETO * one > dec(params.veto_threshold) * voted) return fails;
  const passes = sum.VOTE_OPTION_YES * one > dec(params.threshold) * notAbstaining;
  return { passes, result };
}
