/**
 * Upgrade proposals in their voting period (issue #45, docs/governance.md): what the `proposals` event
 * carries (the whole list as last read and checked), the status document's `proposals` and the
 * metrics' source. A public interface: add, never rename.
 */
import { aboutDuration } from '../eta.js';

/** This validator's vote: an option, `weighted` (several), `none` (not voted); null when it cannot be known. */
export type VoteChoice = 'yes' | 'no' | 'abstain' | 'no_with_veto' | 'weighted' | 'none';

/** Shares of the votes cast so far (numbers 0–1; all 0 while nobody voted). */
export interface ProposalTally {
  yes: number;
  no: number;
  abstain: number;
  noWithVeto: number;
}

export interface ProposalBinary {
  /** `unchecked`: not fetched (or not yet); `staged`: fetched, verified and in `upgrades/<name>/`; `rehearsed`: and rehearsal passed; `problem`: see `problem`. */
  state: 'unchecked' | 'staged' | 'rehearsed' | 'problem';
  /** The checksum the Info gives for this host's binary (`sha256:…`), when it gives one. */
  checksum?: string;
  /** Where the binary was (or would be) fetched from, its URL shown without secrets. */
  source?: string;
  /** What is wrong (state `problem`), or why it is not fetched (state `unchecked`). */
  problem?: string;
}

/** A cancellation proposed when this one's vote ends could no longer pass before the height (gov params' numbers). */
export interface CancelWindow {
  /** RFC 3339: the proposal's voting end. */
  votingEnd: string;
  votingPeriodSeconds: number;
  depositPeriodSeconds: number;
  /** votingEnd + deposit period + voting period: the last time a cancellation proposed after this vote could pass. */
  cancellableUntil: string;
  /** RFC 3339: when the height is expected (the block time over the recent blocks). */
  heightAt: string;
}

export interface ProposalView {
  /** The proposal id, a decimal string. */
  id: string;
  name: string;
  /** The plan's height, a decimal string. */
  height: string;
  /** RFC 3339; null when the chain does not say. */
  votingEnd: string | null;
  tally: ProposalTally | null;
  vote: VoteChoice | null;
  binary: ProposalBinary;
  /** Set when a cancellation could not pass in time; null when it could, or while the block time is unknown. */
  tooLateToCancel: CancelWindow | null;
  /** The chain's gov module version that answered. */
  gov: 'v1' | 'v1beta1';
}

const shares = (t: ProposalTally) => `yes ${pct(t.yes)}, no ${pct(t.no)}, veto ${pct(t.noWithVeto)}, abstain ${pct(t.abstain)}`;
const pct = (x: number) => `${(x * 100).toFixed(x === 0 || x === 1 ? 0 : 1)} %`;

/** "ends in 3 h 20 min", "voting ended": for a person. */
export function endsIn(votingEnd: string | null, now: number): string {
  if (votingEnd === null) return 'voting end unknown';
  const ms = Date.parse(votingEnd) - now;
  return ms > 0 ? `ends in ${aboutDuration(ms / 1000)}` : 'voting ended';
}

/** "not voted, ends in 20 h 5 min", "voted yes": the vote for a person. */
export function describeVote(p: Pick<ProposalView, 'vote' | 'votingEnd'>, now: number): string {
  if (p.vote === null) return 'vote unknown';
  if (p.vote === 'none') return `not voted, ${endsIn(p.votingEnd, now)}`;
  return `voted ${p.vote.replace(/_/g, ' ')}`;
}

/** The cancel window in one clause: "too late to cancel: …". */
export function describeCancelWindow(w: CancelWindow): string {
  return `too late to cancel: the height is expected at ${w.heightAt}, before ${w.cancellableUntil} (voting end ${w.votingEnd} + deposit period ${w.depositPeriodSeconds} s + voting period ${w.votingPeriodSeconds} s), so a cancellation proposed after this vote could not pass in time`;
}

/** One line of `chainvisor status`. */
export function describeProposal(p: ProposalView, now: number): string {
  const tally = p.tally === null ? 'tally unknown' : shares(p.tally);
  const binary = p.binary.state === 'problem' ? `binary PROBLEM: ${p.binary.problem ?? '?'}` : `binary ${p.binary.state}`;
  const late = p.tooLateToCancel === null ? '' : `; ${describeCancelWindow(p.tooLateToCancel)}`;
  const vote = p.vote === 'none' ? describeVote(p, now) : `${describeVote(p, now)}, ${endsIn(p.votingEnd, now)}`;
  return `#${p.id} "${p.name}" at height ${p.height}: ${vote}; ${tally}; ${binary}${late}`;
}
