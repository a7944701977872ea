/** What the follow (network-follow.ts) refuses to believe of a round state read from the node's RPC. */
import type { RoundState } from '../../chain/index.js';

/**
 * What cannot be true of a round state: more voted power than there is, or a bit array whose length is
 * not the validator set's (then its entries say nothing of this validator's vote). Null when nothing.
 */
export function roundProblem(round: RoundState, order: string[] | undefined): string | null {
  const problems: string[] = [];
  for (const [name, share] of [
    ['prevote', round.prevotes],
    ['precommit', round.precommits],
  ] as const) {
    if (share === undefined) continue;
    if (share.overstated) problems.push(`the ${name} share claims ${share.power} of ${share.total} voting power, more than all of it (shown as 100 %)`);
    if (order !== undefined && share.voted.length !== order.length)
      problems.push(`the ${name} bit array has ${share.voted.length} entries for a validator set of ${order.length}`);
  }
  return problems.length === 0 ? null : problems.join('; ');
}
