/**
 * Webhooks: the notable events, POSTed as JSON to every CHAINVISOR_WEBHOOK_URL:
 *
 *   {"event":"upgrade-applied","upgrade":{"name":"v2","height":10},"time":"2026-…Z","host":"val-1","text":"…"}
 *
 * The bus listener only appends to a queue and returns: delivery happens in the background, one queue
 * per receiver so each receives the events in order, each attempt time-limited, failures retried with
 * exponential backoff. A dead receiver therefore never delays the upgrade, nor another receiver.
 */
import os from 'node:os';

import type { Channel } from '../../shared/alerts/index.js';
import {
  type AfterUpgrade,
  afterUpgradeEvents,
  type CancelWindow,
  type EventBus,
  type HomeMismatch,
  type NotableEvent,
  notableEvents,
  type SupervisorEvent,
  twinCheckEvents,
  type TwinCheckReport,
  type UpgradeRef,
} from '../../shared/events/index.js';
import type { Logger } from '../../shared/log.js';
import { createHttpClient, type HttpClient } from '../../shared/net/index.js';
import { scrubSecrets } from '../../shared/redact.js';
import { createDeliveryQueue, flushQueues } from './queue.js';
import type { FailureRepeats } from './repeats.js';
import { postWithRetry } from './retry.js';
import type { WebhookTarget } from './targets.js';

/** The after-upgrade events (issue #26) also carry the follow's fields (`AfterUpgrade`) at the top level, beside `event`. */
export interface WebhookPayload extends Partial<Omit<AfterUpgrade, 'upgrade'>> {
  event: NotableEvent;
  upgrade: { name: string; height: number } | null;
  time: string;
  host: string;
  text: string;
  /** key-in-use and twin-unchecked (issue #32): what the twin check found, the RPC redacted. */
  twinCheck?: TwinCheckReport;
  /** home-mismatch (issue #43): the node's home and DAEMON_HOME, how it was seen. */
  homeMismatch?: HomeMismatch;
  /** upgrade-rescheduled (issue #45): the height the plan had before; `upgrade` has the new one. */
  from?: number;
  /** upgrade-cancelled (issue #45): the plan that took its place on chain, when another did. */
  replacedBy?: UpgradeRef;
  /** upgrade-proposed, proposal-problem, vote-missing (issue #45, docs/governance.md): the proposal and what the event says of it. */
  proposal?: ProposalFields;
}

export interface ProposalFields {
  id: string;
  votingEnd: string | null;
  /** upgrade-proposed: set when a cancellation could no longer pass before the height. */
  tooLateToCancel?: CancelWindow | null;
  /** proposal-problem: what is wrong with its binary. */
  problem?: string;
  /** vote-missing: the validator's account that has not voted. */
  voter?: string;
}

const proposalEvents: readonly string[] = ['upgrade-proposed', 'proposal-problem', 'vote-missing'];

function proposalFields(data: Record<string, unknown>): ProposalFields {
  return {
    id: String(data.proposal),
    votingEnd: typeof data.votingEnd === 'string' ? data.votingEnd : null,
    ...(data.tooLateToCancel === undefined ? {} : { tooLateToCancel: data.tooLateToCancel as CancelWindow | null }),
    ...(typeof data.problem === 'string' ? { problem: data.problem } : {}),
    ...(typeof data.voter === 'string' ? { voter: data.voter } : {}),
  };
}

export interface WebhookOptions {
  targets: WebhookTarget[];
  bus: EventBus;
  logger: Logger;
  host?: string;
  /** Per attempt (default 5 s). */
  timeoutMs?: number;
  /** Attempts per event and receiver (default 6: 1+2+4+8+16 s of backoff). */
  attempts?: number;
  /** First backoff delay (default 1 s), doubled per attempt, capped at 30 s. */
  backoffMs?: number;
  /** Events kept per receiver while it is unreachable (default 100; the oldest are dropped). */
  maxQueued?: number;
  /** Where the proxy variables and SSL_CERT_FILE/SSL_CERT_DIR are read; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** CHAINVISOR_NOTIFY_EVENTS: only these are sent; undefined for all. */
  events?: ReadonlySet<string> | undefined;
  /** A failure that ends chainvisor goes out once an hour across restarts (repeats.ts). */
  repeats?: FailureRepeats;
}

export interface Webhooks {
  /** Waits up to `flushMs` for queued events to go out, then stops. */
  close(flushMs?: number): Promise<void>;
}

export function payloadOf(event: SupervisorEvent, host: string): WebhookPayload {
  const follow = afterUpgradeEvents.includes(event.event) ? afterUpgradeFields(event.data) : {};
  return {
    ...follow,
    event: event.event as NotableEvent,
    upgrade: event.upgrade ? { name: event.upgrade.name, height: event.upgrade.height } : null,
    time: new Date(event.time).toISOString(),
    host,
    // One line: chat webhooks render `text` as it is.
    text: event.text.replace(/\s*\n\s*/g, ' '),
    ...(twinCheckEvents.includes(event.event) && event.data !== undefined ? { twinCheck: twinCheckFields(event.data) } : {}),
    ...(event.event === 'home-mismatch' && event.data !== undefined ? { homeMismatch: homeMismatchFields(event.data) } : {}),
    ...(event.event === 'upgrade-rescheduled' && typeof event.data?.from === 'number' ? { from: event.data.from } : {}),
    ...(event.event === 'upgrade-cancelled' && event.data?.replacedBy !== undefined ? { replacedBy: event.data.replacedBy as UpgradeRef } : {}),
    ...(proposalEvents.includes(event.event) && event.data !== undefined ? { proposal: proposalFields(event.data) } : {}),
  };
}

function homeMismatchFields(data: Record<string, unknown>): HomeMismatch {
  const { nodeHome, daemonHome, seen, file, refused } = data as unknown as HomeMismatch;
  return { nodeHome, daemonHome, seen, file, refused };
}

/**
 * `notify --test`: each CHAINVISOR_WEBHOOK_URL target as a channel (named by its redacted URL) whose
 * message is the payload a webhook gets, for the test notice (`"event": "notify-test"`).
 */
export function webhookChannels(targets: readonly WebhookTarget[], host = os.hostname()): Channel[] {
  return targets.map((target) => ({
    name: `webhook ${target.shown}`,
    url: target.url,
    secrets: target.secrets,
    formatter: () => (notice) => [JSON.stringify(payloadOf({ event: notice.event as SupervisorEvent['event'], text: notice.what, time: Date.now() }, host))],
  }));
}

function twinCheckFields(data: Record<string, unknown>): TwinCheckReport {
  const { state, checkedAt, rpc, fromHeight, toHeight, seenHeight, localHeight, address, reason } = data as unknown as TwinCheckReport;
  return { state, checkedAt, rpc, fromHeight, toHeight, seenHeight, localHeight, address, reason };
}

function afterUpgradeFields(data: Record<string, unknown> | undefined): Partial<Omit<AfterUpgrade, 'upgrade'>> {
  if (data === undefined) return {};
  const { state, height, round, prevoteRatio, precommitRatio, ownPrevote, signed, seconds, since } = data as Partial<AfterUpgrade>;
  return { state, height, round, prevoteRatio, precommitRatio, ownPrevote, signed, seconds, since };
}

export function startWebhooks(options: WebhookOptions): Webhooks {
  const host = options.host ?? os.hostname();
  const notable = new Set<string>(notableEvents);
  const stop = new AbortController();
  const client = createHttpClient({ timeoutMs: options.timeoutMs ?? 5000, ...(options.env === undefined ? {} : { env: options.env }) });
  const queues = options.targets.map((target) => createQueue(target, options, client, stop.signal));
  const off = options.bus.on((event) => {
    if (!notable.has(event.event) || (options.events !== undefined && !options.events.has(event.event))) return;
    if (options.repeats?.allows(event) === false) return;
    const body = JSON.stringify(payloadOf(event, host));
    for (const queue of queues) queue.push({ event: event.event, body });
  });
  return {
    async close(flushMs = 5000) {
      off();
      await flushQueues(queues, flushMs, stop, client, (queue, n) =>
        options.logger.warn({ url: queue.target.shown, events: n }, 'webhooks not delivered before exit'),
      );
    },
  };
}

function createQueue(target: WebhookTarget, options: WebhookOptions, client: HttpClient, signal: AbortSignal) {
  const timeoutMs = options.timeoutMs ?? 5000;
  const attempts = options.attempts ?? 6;
  const backoffMs = options.backoffMs ?? 1000;
  const log = options.logger.child({ url: target.shown });

  async function deliver(item: { event: string; body: string }): Promise<void> {
    const { answer, attempt, stopped } = await postWithRetry(client, target.url, item.body, {
      timeoutMs,
      signal,
      read: 'status',
      attempts,
      backoffMs,
      onRetry: (failed, n, wait) =>
        log.warn(
          { webhook: item.event, attempt: n, reason: scrubSecrets(failed.reason, target.secrets), retryInMs: Math.round(wait) },
          'webhook attempt failed; retrying',
        ),
    });
    if (stopped) return;
    if (answer.ok) log.debug({ webhook: item.event, status: answer.status }, 'webhook delivered');
    else log.warn({ webhook: item.event, attempt, reason: scrubSecrets(answer.reason, target.secrets) }, 'webhook not delivered; giving up on this event');
  }

  const queue = createDeliveryQueue<{ event: string; body: string }>({
    maxQueued: options.maxQueued ?? 100,
    signal,
    send: deliver,
    onDropped: (dropped) => log.warn({ webhook: dropped.event }, 'webhook queue full; dropping the oldest waiting event'),
    onFailed: (error) => log.error({ reason: scrubSecrets(error instanceof Error ? error.message : String(error), target.secrets) }, 'webhooks dropped'),
  });
  return { target, ...queue };
}
