/**
 * What a gov proposal says of an upgrade, in gov v1 and v1beta1 (issue #45): the plan of its
 * MsgSoftwareUpgrade (v1), of the SoftwareUpgradeProposal inside its MsgExecLegacyContent (v1) or of
 * its content (v1beta1); its voting end; a tally's shares. Pure functions over cosmjs-types' messages:
 * a proposal that is not an upgrade is undefined, one that is but says something no chain could (a
 * message that does not decode, a plan at height 0 or past 2^53, a voting end that is not a time) is
 * the reason, in words safe to print, that the reader skips it for.
 */
import type { Proposal as ProposalV1 } from 'cosmjs-types/cosmos/gov/v1/gov.js';
import { MsgExecLegacyContent } from 'cosmjs-types/cosmos/gov/v1/tx.js';
import type { Proposal as ProposalV1beta1 } from 'cosmjs-types/cosmos/gov/v1beta1/gov.js';
import { MsgSoftwareUpgrade } from 'cosmjs-types/cosmos/upgrade/v1beta1/tx.js';
import type { Plan } from 'cosmjs-types/cosmos/upgrade/v1beta1/upgrade.js';
import { SoftwareUpgradeProposal } from 'cosmjs-types/cosmos/upgrade/v1beta1/upgrade.js';
import type { Any } from 'cosmjs-types/google/protobuf/any.js';
import type { Timestamp } from 'cosmjs-types/google/protobuf/timestamp.js';

import type { ProposalTally } from '../shared/events/index.js';
import { shownText } from '../shared/json.js';
import { planOf, type ScheduledPlan } from './grpc-client.js';

export const msgSoftwareUpgradeType = '/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade';
export const msgExecLegacyContentType = '/cosmos.gov.v1.MsgExecLegacyContent';
export const softwareUpgradeProposalType = '/cosmos.upgrade.v1beta1.SoftwareUpgradeProposal';

/** PROPOSAL_STATUS_VOTING_PERIOD, the same number in v1 and v1beta1. */
export const votingPeriodStatus = 2;

/** An upgrade proposal in its voting period, as read from the chain (texts as the chain has them). */
export interface ProposedUpgrade {
  /** The proposal id, a decimal string. */
  id: string;
  /** The proposal's title (v1, SDK v0.47+), else its legacy content's, else "". */
  title: string;
  plan: ScheduledPlan;
  /** When its vote ends (ms since the epoch); null when the chain does not say. */
  votingEndMs: number | null;
  /** Shares of the votes cast so far; null when the tally could not be read (the reason is in `problems`). */
  tally: ProposalTally | null;
  gov: 'v1' | 'v1beta1';
}

/** What a proposal holds before its tally is asked. */
export type UpgradeOfProposal = Omit<ProposedUpgrade, 'tally'>;

/**
 * The upgrade a v1 proposal schedules, undefined when it schedules none, or why it cannot be read.
 * Several upgrade messages: the last is the plan the chain would keep (each one replaces the plan).
 */
export function upgradeOfV1(proposal: ProposalV1): UpgradeOfProposal | undefined | string {
  const id = proposal.id.toString();
  let found: { plan: Plan | undefined; title: string } | undefined;
  for (const [i, message] of proposal.messages.entries()) {
    const read = upgradeOfMessage(message);
    if (typeof read === 'string') return `proposal #${id}: its message ${i + 1} (${shownText(message.typeUrl, 100)}) ${read}`;
    if (read !== undefined) found = read;
  }
  if (found === undefined) return undefined;
  return upgradeOf(id, proposal.status, found.plan, proposal.title || found.title, proposal.votingEndTime, 'v1');
}

/** The upgrade of a v1beta1 proposal's content, undefined when it is no SoftwareUpgradeProposal, or why it cannot be read. */
export function upgradeOfV1beta1(proposal: ProposalV1beta1): UpgradeOfProposal | undefined | string {
  const id = proposal.proposalId.toString();
  if (proposal.content?.typeUrl !== softwareUpgradeProposalType) return undefined;
  const content = decoded(SoftwareUpgradeProposal, proposal.content.value);
  if (typeof content === 'string') return `proposal #${id}: its content ${content}`;
  return upgradeOf(id, proposal.status, content.plan, content.title, proposal.votingEndTime, 'v1beta1');
}

function upgradeOfMessage(message: Any): { plan: Plan | undefined; title: string } | undefined | string {
  if (message.typeUrl === msgSoftwareUpgradeType) {
    const msg = decoded(MsgSoftwareUpgrade, message.value);
    return typeof msg === 'string' ? msg : { plan: msg.plan, title: '' };
  }
  if (message.typeUrl !== msgExecLegacyContentType) return undefined;
  const msg = decoded(MsgExecLegacyContent, message.value);
  if (typeof msg === 'string') return msg;
  if (msg.content?.typeUrl !== softwareUpgradeProposalType) return undefined;
  const content = decoded(SoftwareUpgradeProposal, msg.content.value);
  return typeof content === 'string' ? `holds a SoftwareUpgradeProposal that ${content}` : { plan: content.plan, title: content.title };
}

function upgradeOf(
  id: string,
  status: number,
  plan: Plan | undefined,
  title: string,
  votingEnd: Timestamp | undefined,
  gov: 'v1' | 'v1beta1',
): UpgradeOfProposal | string {
  if (status !== votingPeriodStatus) return `proposal #${id} is not in its voting period (status ${status}), though only those were asked`;
  const checked = planOf(plan);
  if (checked === null) return `proposal #${id} schedules a plan with no name`;
  if (typeof checked === 'string') return `proposal #${id}: ${checked}`;
  const votingEndMs = timestampMs(votingEnd);
  if (typeof votingEndMs === 'string') return `proposal #${id} has a voting end that is not a time: ${votingEndMs}`;
  return { id, title, plan: checked, votingEndMs, gov };
}

function decoded<T>(codec: { decode(bytes: Uint8Array): T }, bytes: Uint8Array): T | string {
  try {
    return codec.decode(bytes);
  } catch (error) {
    return `does not decode: ${shownText((error as Error).message)}`;
  }
}

/** Go's zero time (year 1), which a non-nullable timestamp holds when it was never set. */
const goZeroSeconds = -62_135_596_800n;
/** 9999-12-31T23:59:59Z, the last second a Timestamp may hold. */
const lastSeconds = 253_402_300_799n;

/** A Timestamp as ms since the epoch; null when unset (or Go's zero time); why not, when out of a Timestamp's range. */
export function timestampMs(time: Timestamp | undefined): number | null | string {
  if (time === undefined || (time.seconds === goZeroSeconds && time.nanos === 0)) return null;
  if (time.seconds < goZeroSeconds || time.seconds > lastSeconds) return `${time.seconds} seconds is outside years 1 to 9999`;
  if (!Number.isInteger(time.nanos) || time.nanos < 0 || time.nanos > 999_999_999) return `${time.nanos} nanoseconds is not within a second`;
  return Number(time.seconds) * 1000 + Math.floor(time.nanos / 1_000_000);
}

/** A vote count: a decimal Int ("" when none was cast), at most 80 digits (an sdk.Int has 256 bits). */
const countText = /^\d{0,80}$/;

/** The shares of the counts cast (all 0 when none was), or why the counts are not counts. */
export function tallyShares(counts: { yes: string; no: string; abstain: string; noWithVeto: string }): ProposalTally | string {
  const entries = Object.entries(counts) as Array<[keyof ProposalTally, string]>;
  const bad = entries.find(([, count]) => !countText.test(count));
  if (bad !== undefined) return `the ${bad[0]} count "${shownText(bad[1], 90)}" is not a whole number`;
  const amounts = entries.map(([key, count]) => [key, BigInt(count || '0')] as const);
  const total = amounts.reduce((sum, [, amount]) => sum + amount, 0n);
  // Shares to 9 digits, computed on integers: counts of 10^24 and more are exact as bigints, not as numbers.
  const share = (amount: bigint) => (total === 0n ? 0 : Number((amount * 1_000_000_000n) / total) / 1e9);
  return Object.fromEntries(amounts.map(([key, amount]) => [key, share(amount)])) as unknown as ProposalTally;
}
