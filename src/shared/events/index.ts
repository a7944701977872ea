/** The supervisor's events and their bus (bus.ts); the after-upgrade, twin-check and home-mismatch events' data. */
export { type AfterUpgrade, afterUpgradeEvents, describeAfterUpgrade } from './after-upgrade.js';
export {
  createEventBus,
  type EventBus,
  type EventListener,
  type EventName,
  type NotableEvent,
  notableEvents,
  type SupervisorEvent,
  type UpgradeRef,
} from './bus.js';
export { describeHomeMismatch, type HomeMismatch } from './home-mismatch.js';
export {
  type CancelWindow,
  describeCancelWindow,
  describeProposal,
  describeVote,
  endsIn,
  type ProposalBinary,
  type ProposalTally,
  type ProposalView,
  type VoteChoice,
} from './proposals.js';
export { describeTwinCheck, twinCheckEvents, type TwinCheckReport } from './twin-check.js';
