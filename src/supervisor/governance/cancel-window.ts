/**
 * Too late to cancel (issue #45, item 5; docs/upgrade-module.md): a cancellation is a proposal too, and
 * one proposed when this vote ends passes at the earliest one deposit period and one voting period
 * later. When the upgrade's height is expected before that, nobody could stop it in time. The height's
 * time is the block-time estimate of shared/eta.ts; without a block time nothing is said.
 */
import { type BlockTime, etaOf } from '../../shared/eta.js';
import type { CancelWindow } from '../../shared/events/index.js';

export interface GovPeriods {
  votingPeriodMs: number;
  depositPeriodMs: number;
}

/** The window when a cancellation could not pass before the height; null when it could, or when it is not known. */
export function tooLateToCancel(
  proposal: { height: number; votingEndMs: number | null },
  periods: GovPeriods | undefined,
  blockTime: BlockTime | null,
  now = Date.now(),
): CancelWindow | null {
  if (periods === undefined || proposal.votingEndMs === null || blockTime === null) return null;
  // A height the chain has reached is no upgrade at all (the module refuses such a plan when the vote passes).
  if (proposal.height <= blockTime.height) return null;
  const eta = etaOf(proposal.height, blockTime, now);
  if (eta === null) return null;
  const until = cancellableUntil(proposal.votingEndMs, periods);
  if (Date.parse(eta.at) >= until) return null;
  return {
    votingEnd: new Date(proposal.votingEndMs).toISOString(),
    votingPeriodSeconds: periods.votingPeriodMs / 1000,
    depositPeriodSeconds: periods.depositPeriodMs / 1000,
    cancellableUntil: new Date(until).toISOString(),
    heightAt: eta.at,
  };
}

/** The last time a cancellation proposed when this vote ends could pass: a deposit period, then a voting period. */
export function cancellableUntil(votingEndMs: number, periods: GovPeriods): number {
  return votingEndMs + periods.depositPeriodMs + periods.votingPeriodMs;
}
