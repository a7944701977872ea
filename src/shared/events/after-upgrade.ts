/**
 * How the network is doing after an upgrade (issue #26), as the follow sees it: the data of
 * network-waiting, consensus-round, upgrade-confirmed, validator-not-signing and upgrade-stalled, the
 * status document's `afterUpgrade`, and the top-level fields of their webhooks; describeAfterUpgrade says it in one line (the events'
 * `text`, `chainvisor status`). A public interface: add, never rename.
 */
export interface AfterUpgrade {
  upgrade: string;
  state: 'waiting' | 'confirmed' | 'not-signing' | 'stalled';
  /** The height and round the network is at (while waiting), or the first block at or past the upgrade height (confirmed). */
  height: number | null;
  round: number | null;
  /** Shares (0–1) of the voting power that prevoted and precommitted in the current round; null once confirmed or before the first reading. */
  prevoteRatio: number | null;
  precommitRatio: number | null;
  /** Whether this node's validator prevoted in the round; null for a node with no voting power, or unknown. */
  ownPrevote: boolean | null;
  /** Whether this node's validator signed the first block at or past the height; null for a node with no voting power, or before it. */
  signed: boolean | null;
  /** Seconds from the switch (upgrade-applied) to that block's time; null before it. */
  seconds: number | null;
  /** When this state began (ISO 8601). */
  since: string;
}

/** The events whose data is an `AfterUpgrade`. */
export const afterUpgradeEvents: readonly string[] = ['network-waiting', 'consensus-round', 'upgrade-confirmed', 'validator-not-signing', 'upgrade-stalled'];

const percent = (ratio: number): string => `${(ratio * 100).toFixed(1).replace(/\.0$/, '')} %`;

/** One line naming the state: `v2: waiting at height 1234567, round 2: 48 % of the voting power prevoted (needs more than 66.7 %), this validator prevoted`. */
export function describeAfterUpgrade(a: AfterUpgrade, warnAfter?: string): string {
  const at = a.height === null ? '' : ` at height ${a.height}${a.round === null ? '' : `, round ${a.round}`}`;
  const share =
    a.prevoteRatio === null
      ? ''
      : `: ${percent(a.prevoteRatio)} of the voting power prevoted (needs more than 66.7 %)${
          a.ownPrevote === null ? '' : a.ownPrevote ? ', this validator prevoted' : ', this validator has NOT prevoted'
        }`;
  const signed = a.signed === null ? 'this node has no voting power' : a.signed ? 'this validator signed it' : 'this validator did NOT sign it';
  switch (a.state) {
    case 'waiting':
      return `${a.upgrade}: waiting${at === '' ? ' for the node to answer' : at}${share}`;
    case 'stalled':
      return `${a.upgrade}: stalled, no block at the upgrade height${warnAfter === undefined ? '' : ` after ${warnAfter}`}; still waiting${at === '' ? " for the node's RPC to answer" : at}${share}`;
    case 'confirmed':
      return `${a.upgrade}: confirmed, first block at height ${a.height ?? '?'}${a.seconds === null ? '' : ` ${a.seconds.toFixed(1)} s after the switch`}; ${signed}`;
    case 'not-signing':
      return `${a.upgrade}: not signing, this validator has voting power but is absent from the commits of the first 3 blocks after the upgrade (height ${a.height ?? '?'} on)`;
  }
}
