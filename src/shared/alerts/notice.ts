/**
 * One upgrade event as a person reads it in one glance (issue #27): which chain, which node, which
 * upgrade at which height, what happened, and what to do. Every channel's format (registry.ts lists
 * them) renders this one notice, so they never disagree; a new fact for every channel is added here.
 */
import { errorCatalogue, type ErrorCode, errorSpec } from '../errors/index.js';
import { describeEta, type Eta } from '../eta.js';
import { notableEvents, type SupervisorEvent } from '../events/index.js';
import type { NodeFacts } from './node-facts.js';

/** The events the chat channels send: the notable events, the after-upgrade follow's four (issue #26) among them. */
export const chatEvents = notableEvents;

/** `chainvisor notify --test`: never emitted on the bus. */
export const testEvent = 'notify-test';

export type Tone = 'good' | 'info' | 'warning' | 'bad';

export interface Notice {
  event: string;
  /** "Upgrade v2 failed". */
  title: string;
  /** The event's own sentence, on one line. */
  what: string;
  /** What the operator does, when there is something to do. */
  hint: string | undefined;
  tone: Tone;
  chainId: string | undefined;
  node: string;
  upgrade: { name: string; height: number } | undefined;
  /** ISO 8601. */
  time: string;
  /** The event's data, for PagerDuty's custom_details. */
  data: Record<string, unknown>;
}

/** `height`: the upgrade's (0 when the event names none). */
const titles: Record<string, { title: (name: string, height: number) => string; tone: Tone; hint?: string }> = {
  'upgrade-scheduled': { title: (n) => `Upgrade ${n} scheduled`, tone: 'info' },
  'upgrade-cancelled': {
    title: (n) => `Upgrade ${n} cancelled on chain`,
    tone: 'info',
    hint: "nothing is switched at its height: the node stays on its binary. A binary staged for it stays in upgrades/<name>/, marked not planned in 'chainvisor status', and serves only a plan of that name with the same Info",
  },
  'upgrade-rescheduled': {
    title: (n, h) => `Upgrade ${n} moved to height ${h}`,
    tone: 'info',
    hint: 'the switch happens at the new height, not the old one: move the upgrade watch to the new time',
  },
  'binary-staged': { title: (n) => `Upgrade ${n}: binary staged`, tone: 'good' },
  'staging-failed': {
    title: (n) => `Upgrade ${n}: staging failed`,
    tone: 'warning',
    hint: "install the binary by hand with 'chainvisor add-upgrade <name> <path>' before the height, or fix the plan's download URL",
  },
  'checksum-disagreement': {
    title: (n) => `Upgrade ${n}: sources disagree on the binary's checksum`,
    tone: 'bad',
    hint: "nothing is installed until they agree: find the wrong source ('chainvisor check-plan --upgrade <name>' shows each one's checksum) and correct it, or install a verified binary with 'chainvisor add-upgrade <name> <path>'",
  },
  'rehearsal-passed': { title: (n) => `Upgrade ${n}: rehearsal passed`, tone: 'good' },
  'rehearsal-failed': {
    title: (n) => `Upgrade ${n}: rehearsal failed`,
    tone: 'warning',
    hint: "read the report with 'chainvisor status' and fix the binary before the height",
  },
  'upgrade-detected': { title: (n) => `Upgrade ${n}: halt reached, switching`, tone: 'info' },
  'upgrade-applied': { title: (n) => `Upgrade ${n} applied`, tone: 'good' },
  'upgrade-failed': { title: (n) => `Upgrade ${n} failed`, tone: 'bad' },
  'node-exited': { title: () => 'Node exited', tone: 'warning', hint: "check the node's logs" },
  'network-waiting': { title: (n) => `Upgrade ${n}: waiting for the network`, tone: 'info' },
  'upgrade-confirmed': { title: (n) => `Upgrade ${n} confirmed: blocks are produced`, tone: 'good' },
  'validator-not-signing': {
    title: () => 'Validator not signing',
    tone: 'bad',
    hint: "check the node's logs, its signer (priv_validator_key / remote signer) and its peers",
  },
  'upgrade-stalled': {
    title: (n) => `Upgrade ${n}: chain stalled`,
    tone: 'bad',
    hint: "check the node's logs and the validators' channel: the network may lack voting power on the new binary",
  },
  'key-in-use': {
    title: () => 'Validator key in use on another machine: node stopped',
    tone: 'bad',
    hint: "find the other machine running this validator's key (a failover node, an old VM, a restored snapshot, a copied key) and stop it; do not start this node until then",
  },
  'twin-unchecked': {
    title: () => 'Twin check not made',
    tone: 'warning',
    hint: 'make CHAINVISOR_NETWORK_RPC answer (an RPC of this chain): until then chainvisor cannot see this key signing elsewhere',
  },
  'home-mismatch': {
    title: () => 'Node runs outside DAEMON_HOME',
    tone: 'warning',
    hint: "pass --home $DAEMON_HOME to the node, or set DAEMON_HOME to the node's home: until then upgrades are not applied and the node's signing state is not guarded",
  },
  'upgrade-proposed': {
    title: (n) => `Upgrade ${n} proposed`,
    tone: 'info',
    hint: "check its binary ('chainvisor status' lists the proposal) and vote before the voting period ends",
  },
  'proposal-problem': {
    title: (n) => `Proposal for upgrade ${n}: its binary cannot be used`,
    tone: 'bad',
    hint: 'vote no, or tell the proposer, before the vote ends: if it passes as it is, every validator halts at the height with no working binary',
  },
  'vote-missing': {
    title: (n) => `Not voted on upgrade ${n}`,
    tone: 'warning',
    hint: "vote on the proposal before its voting period ends ('<daemon> tx gov vote <id> <option> --from <key>'); chainvisor never votes for you",
  },
  [testEvent]: { title: () => 'Test message from chainvisor', tone: 'info' },
};

/** The events whose message says when the upgrade's height is expected (issue #35). */
export const whenEvents: readonly string[] = [
  'upgrade-scheduled',
  'upgrade-rescheduled',
  'binary-staged',
  'staging-failed',
  'upgrade-proposed',
  'vote-missing',
  'proposal-problem',
];

/** `eta`: when the upgrade's height is expected, as estimated when the event happened (whenEvents only). */
export function noticeOf(event: Pick<SupervisorEvent, 'event' | 'upgrade' | 'text' | 'time' | 'data'>, facts: NodeFacts, eta?: Eta | null): Notice {
  const name = event.upgrade?.name ?? '';
  const known = titles[event.event];
  const data = event.data ?? {};
  let tone = known?.tone ?? 'info';
  const failedExit = event.event === 'node-exited' && (typeof data.code === 'number' ? data.code !== 0 : data.signal !== undefined && data.signal !== null);
  if (event.event === 'node-exited' && !failedExit) tone = 'info';
  if (
    (event.event === 'node-exited' && failedExit && data.restart === false) ||
    (event.event === 'staging-failed' && data.blocksLeft !== undefined) ||
    (event.event === 'twin-unchecked' && data.refused === true) ||
    (event.event === 'home-mismatch' && data.refused === true)
  )
    tone = 'bad';
  // Too late to cancel: the network is committed to it once the vote passes.
  if (event.event === 'upgrade-proposed' && data.tooLateToCancel != null) tone = 'warning';
  return {
    event: event.event,
    title: cut(known ? known.title(name, event.upgrade?.height ?? 0) : `${event.event}${name === '' ? '' : ` ${name}`}`, 200),
    what: event.text.replace(/\s*\n\s*/g, ' ') + (eta ? `; ${describeEta(eta)}` : ''),
    hint: cut(hintOf(event.event, data) ?? known?.hint ?? '', 600) || undefined,
    tone,
    chainId: facts.chainId,
    node: facts.node,
    upgrade: event.upgrade ? { name: event.upgrade.name, height: event.upgrade.height } : undefined,
    time: new Date(event.time).toISOString(),
    data: eta ? { ...data, eta } : data,
  };
}

/** The error's own hint (upgrade-failed carries it), else its code's hint in the catalogue. */
function hintOf(event: string, data: Record<string, unknown>): string | undefined {
  if (typeof data.hint === 'string' && data.hint !== '') return data.hint;
  if (event === 'upgrade-failed' && typeof data.code === 'string' && Object.hasOwn(errorCatalogue, data.code)) return errorSpec(data.code as ErrorCode).hint;
  return undefined;
}

/** "cosmoshub-4 / val-1" — the chain (when known) and the node. */
export function whereOf(notice: Notice): string {
  return notice.chainId === undefined ? notice.node : `${notice.chainId} / ${notice.node}`;
}

/** The one fallback line: "[cosmoshub-4 / val-1] Upgrade v2 failed at height 10". */
export function headlineOf(notice: Notice): string {
  const h = notice.upgrade?.height ?? 0;
  // "Upgrade v2 moved to height 200" names it already.
  const height = h > 0 && !notice.title.endsWith(`height ${h}`) ? ` (height ${h})` : '';
  return `[${whereOf(notice)}] ${notice.title}${height}`;
}

/** At most `max` UTF-16 units, ending in `…` when cut, never in half a surrogate pair. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/**
 * The longest rendering within `max`: `render(budget)` cuts its free text (the event's sentence) to
 * `budget` characters before escaping, so markup and entities are never cut in half. Each round
 * shrinks the budget by the excess, which escaping only makes larger: a few rounds at most.
 */
export function fitTo(max: number, render: (budget: number) => string): string {
  let budget = max;
  let text = render(budget);
  while (text.length > max && budget > 0) {
    budget = Math.max(0, budget - (text.length - max));
    text = render(budget);
  }
  return text.length > max ? cut(text, max) : text;
}
