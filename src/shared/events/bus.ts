/**
 * The supervisor's events: one stable name per stage an operator cares about. The same name is the
 * `event` field of the stage's log line, the webhook's `event`, and what metrics and the status page
 * follow. Producers (supervisor, staging, manual upgrades) emit; observers (metrics, webhooks, status)
 * listen. Emitting never throws and never waits: a slow or failing observer cannot delay an upgrade.
 */

/** Events that are also sent as webhooks (issue: observability). */
export const notableEvents = [
  'upgrade-scheduled',
  'binary-staged',
  'staging-failed',
  // Two sources of a plan's binary give different checksums (issue #34): data { sources, platform, near, blocksLeft }.
  'checksum-disagreement',
  'upgrade-detected',
  'upgrade-applied',
  'upgrade-failed',
  'node-exited',
  'rehearsal-passed',
  'rehearsal-failed',
  'data-restored',
  // After the switch, until the network is back (issue #26): data is an `AfterUpgrade`.
  'network-waiting',
  'upgrade-confirmed',
  'validator-not-signing',
  'upgrade-stalled',
  // Never two signers (issue #32): data is a `TwinCheckReport`.
  'key-in-use',
  'twin-unchecked',
  // The node lives outside DAEMON_HOME (issue #43): data is a `HomeMismatch`.
  'home-mismatch',
  // Governance (issue #45, docs/governance.md): an upgrade proposal in its voting period, once per proposal; data { proposal, votingEnd, gov, tooLateToCancel }.
  'upgrade-proposed',
  // A proposal's binary cannot be used (no binary for this platform, a checksum mismatch or disagreement, a failed rehearsal): data { proposal, problem }.
  'proposal-problem',
  // This validator has not voted CHAINVISOR_VOTE_REMINDER before the voting end: data { proposal, votingEnd }.
  'vote-missing',
  // The plan left the chain before its height, not applied (a passed MsgCancelUpgrade, or replaced by another plan): data { replacedBy? }.
  'upgrade-cancelled',
  // The plan's height moved by a later passed proposal: data { from, info }.
  'upgrade-rescheduled',
] as const;
export type NotableEvent = (typeof notableEvents)[number];

/** Everything observers may follow, notable or not. */
export type EventName =
  | NotableEvent
  | 'node-started'
  | 'node-stopped'
  | 'download-progress'
  | 'backup-started'
  | 'backup-done'
  /** Progress of a backup copy: data `{ bytes, total, delta, done }` (as `download-progress`). */
  | 'backup-progress'
  /** Progress of an archive unpacked after its download (zip): data as `download-progress`, in uncompressed bytes. */
  | 'extract-progress'
  /** The chain's latest block height, from whoever polls the chain: data `{ height }`. */
  | 'chain-height'
  /** After an upgrade, each change of the round the network waits in (at most once a second): data an `AfterUpgrade`; `network-waiting` is its notable, throttled form. */
  | 'consensus-round'
  /** Each twin check that found nothing to report (clear, off), at each start and, while the node runs, at most every 30 s: data a `TwinCheckReport`. */
  | 'twin-checked'
  /** The upgrade proposals in their voting period, each time they are read or one's binary changes state: data { proposals: ProposalView[] }. */
  | 'proposals';

export interface UpgradeRef {
  name: string;
  height: number;
}

export interface SupervisorEvent {
  event: EventName;
  /** The upgrade concerned, when there is one. */
  upgrade?: UpgradeRef;
  /** One human sentence (webhooks send it as `text`). */
  text: string;
  /** When it happened (ms since the epoch). */
  time: number;
  /** Anything else the event carries (pid, exit status, bytes, durations …). */
  data?: Record<string, unknown>;
}

export type EventListener = (event: SupervisorEvent) => void;

export interface EventBus {
  emit(event: EventName, fields: { upgrade?: UpgradeRef; text: string; data?: Record<string, unknown> }): SupervisorEvent;
  on(listener: EventListener): () => void;
}

export function createEventBus(): EventBus {
  const listeners = new Set<EventListener>();
  return {
    emit(event, fields) {
      const record: SupervisorEvent = { event, text: fields.text, time: Date.now() };
      if (fields.upgrade) record.upgrade = fields.upgrade;
      if (fields.data) record.data = fields.data;
      for (const listener of listeners) {
        try {
          listener(record);
        } catch {
          // An observer's bug must never break the upgrade path; observers report their own errors.
        }
      }
      return record;
    },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
