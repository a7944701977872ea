/**
 * What governance says of one proposal, as a person and a receiver read it: its view in the status
 * (`proposals`), and the three events `upgrade-proposed`, `vote-missing` and `proposal-problem`. Every
 * text from the chain (a proposal's name, a problem quoting a URL) is escaped and bounded here, the one
 * place proposals are put into words.
 */
import type { ProposedUpgrade } from '../../chain/index.js';
import {
  type CancelWindow,
  describeCancelWindow,
  endsIn,
  type ProposalBinary,
  type ProposalView,
  type UpgradeRef,
  type VoteChoice,
} from '../../shared/events/index.js';
import { shownText } from '../../shared/json.js';
import type { Voter } from './voter.js';

export interface Notice {
  upgrade: UpgradeRef;
  text: string;
  data: Record<string, unknown>;
}

/** A proposal's plan name as it may be shown: escaped, at most 100 characters. */
export const nameOf = (p: ProposedUpgrade): string => shownText(p.plan.name, 100);

export const votingEndOf = (p: ProposedUpgrade): string | null => (p.votingEndMs === null ? null : new Date(p.votingEndMs).toISOString());

const upgradeOf = (p: ProposedUpgrade): UpgradeRef => ({ name: nameOf(p), height: p.plan.height });

export function viewOf(p: ProposedUpgrade, facts: { vote: VoteChoice | null; binary: ProposalBinary; window: CancelWindow | null }): ProposalView {
  return {
    id: p.id,
    name: nameOf(p),
    height: String(p.plan.height),
    votingEnd: votingEndOf(p),
    tally: p.tally,
    vote: facts.vote,
    binary: facts.binary.problem === undefined ? facts.binary : { ...facts.binary, problem: shownText(facts.binary.problem, 600) },
    tooLateToCancel: facts.window,
    gov: p.gov,
  };
}

export function proposedNotice(p: ProposedUpgrade, window: CancelWindow | null, binary: ProposalBinary, now: number): Notice {
  const end = votingEndOf(p);
  const late = window === null ? '' : `; ${describeCancelWindow(window)}`;
  return {
    upgrade: upgradeOf(p),
    text: `upgrade "${nameOf(p)}" proposed at height ${p.plan.height} (proposal #${p.id}; voting ${endsIn(end, now)}${end === null ? '' : `, at ${end}`})${late}`,
    data: { proposal: p.id, title: shownText(p.title, 200), votingEnd: end, gov: p.gov, tooLateToCancel: window, binary },
  };
}

export function reminderNotice(p: ProposedUpgrade, voter: Extract<Voter, { kind: 'validator' }>, now: number): Notice {
  const end = votingEndOf(p);
  const who = shownText(voter.moniker, 80) || voter.operator;
  return {
    upgrade: upgradeOf(p),
    text: `this validator (${who}) has not voted on proposal #${p.id}, upgrade "${nameOf(p)}" at height ${p.plan.height}: voting ${endsIn(end, now)}, at ${end}`,
    data: { proposal: p.id, votingEnd: end, operator: voter.operator, voter: voter.account },
  };
}

export function problemNotice(p: ProposedUpgrade, binary: ProposalBinary & { problem: string }, now: number): Notice {
  const end = votingEndOf(p);
  const problem = shownText(binary.problem, 600);
  return {
    upgrade: upgradeOf(p),
    text: `proposal #${p.id}, upgrade "${nameOf(p)}" at height ${p.plan.height}: its binary cannot be used: ${problem}. Vote no or tell the proposer before the vote ends (${endsIn(end, now)})`,
    data: { proposal: p.id, votingEnd: end, problem, ...(binary.source === undefined ? {} : { source: binary.source }) },
  };
}
