/**
 * Governance (issue #45, docs/governance.md): the upgrade proposals while they are voted — read from
 * the node, their binary checked and (where allowed) staged and rehearsed before the vote ends, this
 * validator's vote looked up and reminded, the cancel window weighed. It tells on the bus; it never
 * signs, votes or schedules anything.
 */
export { type BinaryCheck, checkProposalBinary, type RehearsalOutcome, stagingAllowed } from './binary.js';
export { cancellableUntil, type GovPeriods, tooLateToCancel } from './cancel-window.js';
export { type Governance, type GovernanceOptions, startGovernance } from './watch.js';
