/**
 * The alert channels' delivery (issue #27), alike for every channel (each channel's file in shared/alerts/
 * only renders): the bus listener appends the event to every channel's queue and returns; delivery
 * happens in the background, one queue per channel, so a slow or dead service never delays the
 * upgrade, nor another channel. A failed attempt is retried (retry.ts); `close` delivers what is
 * queued for at most `flushMs` (5 s), so the last events of a failed upgrade (exit 79) still go out.
 * Log lines name the channel, never its URL, token or key.
 */
import os from 'node:os';

import { type Channel, chatEvents, type NodeFacts, noticeOf, testEvent, whenEvents } from '../../shared/alerts/index.js';
import type { Eta } from '../../shared/eta.js';
import type { EventBus, SupervisorEvent } from '../../shared/events/index.js';
import type { Logger } from '../../shared/log.js';
import { createHttpClient, type HttpClient } from '../../shared/net/index.js';
import { scrubSecrets } from '../../shared/redact.js';
import type { Answer } from './post.js';
import { createDeliveryQueue, flushQueues } from './queue.js';
import type { FailureRepeats } from './repeats.js';
import { postWithRetry } from './retry.js';

export interface NotifyOptions {
  channels: Channel[];
  bus: EventBus;
  logger: Logger;
  /** Read in the background; each message waits for it. */
  facts: Promise<NodeFacts> | NodeFacts;
  /** When a height is expected (issue #35): upgrade-scheduled and staging messages say it. */
  eta?: (height: number) => Eta | null;
  /** Per attempt (default 5 s). */
  timeoutMs?: number;
  /** Attempts per message (default 6). */
  attempts?: number;
  /** First backoff delay (default 1 s), doubled per attempt, capped at 30 s. */
  backoffMs?: number;
  /** The longest 429 wait obeyed (default 5 min); a longer one waits this long. */
  maxRetryAfterMs?: number;
  /** Messages kept per channel while it is unreachable (default 100; the oldest are dropped). */
  maxQueued?: number;
  /** Where the proxy variables and SSL_CERT_FILE/SSL_CERT_DIR are read; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** A failure that ends chainvisor goes out once an hour across restarts (repeats.ts). */
  repeats?: FailureRepeats;
}

export interface Notifications {
  /** Waits up to `flushMs` for queued messages to go out, then stops. */
  close(flushMs?: number): Promise<void>;
}

type Item = { event: SupervisorEvent; eta?: Eta | null };

export function startNotifications(options: NotifyOptions): Notifications {
  const sent = new Set<string>(chatEvents);
  const stop = new AbortController();
  const client = createHttpClient({ timeoutMs: options.timeoutMs ?? 5000, ...(options.env === undefined ? {} : { env: options.env }) });
  const facts = Promise.resolve(options.facts);
  const queues = options.channels.map((channel) => {
    const format = facts.then((f) => ({ facts: f, render: channel.formatter(f) }));
    format.catch(() => undefined);
    return createQueue(channel, options, client, stop.signal, async (item) => {
      const { facts: f, render } = await format;
      return render(noticeOf(item.event, f, item.eta));
    });
  });
  const off = options.bus.on((event) => {
    // PagerDuty's resolves come from events CHAINVISOR_NOTIFY_EVENTS may leave out: the channel filters.
    if (!sent.has(event.event) || options.repeats?.allows(event) === false) return;
    // Estimated now, not when the message is formatted: a queue held up by a slow service sends the same time.
    const eta = event.upgrade && whenEvents.includes(event.event) ? options.eta?.(event.upgrade.height) : undefined;
    for (const queue of queues) queue.push({ event, ...(eta ? { eta } : {}) });
  });
  return {
    async close(flushMs = 5000) {
      off();
      await flushQueues(queues, flushMs, stop, client, (queue, n) =>
        options.logger.warn({ channel: queue.name, events: n }, '%s: %d message(s) not delivered before exit', queue.name, n),
      );
    },
  };
}

function createQueue(channel: Channel, options: NotifyOptions, client: HttpClient, signal: AbortSignal, bodies: (item: Item) => Promise<string[]>) {
  const timeoutMs = options.timeoutMs ?? 5000;
  const log = options.logger.child({ channel: channel.name });
  const queue = createDeliveryQueue<Item>({
    maxQueued: options.maxQueued ?? 100,
    signal,
    async send(item) {
      for (const body of await bodies(item)) {
        const answer = await deliver(body, { client, channel, timeoutMs, signal, options });
        if (!answer.ok && !signal.aborted)
          log.warn(
            { notify: item.event.event, reason: scrubSecrets(answer.reason, channel.secrets) },
            '%s: message not delivered; giving up on it',
            channel.name,
          );
        else if (answer.ok) log.debug({ notify: item.event.event }, '%s: message delivered', channel.name);
      }
    },
    onDropped: (dropped) => log.warn({ notify: dropped.event.event }, '%s: queue full; dropping the oldest waiting message', channel.name),
    onFailed: (error) =>
      log.error({ reason: scrubSecrets(error instanceof Error ? error.message : String(error), channel.secrets) }, '%s: messages dropped', channel.name),
  });
  return { name: channel.name, ...queue };
}

interface DeliverContext {
  client: HttpClient;
  channel: Channel;
  timeoutMs: number;
  signal: AbortSignal;
  options: Pick<NotifyOptions, 'attempts' | 'backoffMs' | 'maxRetryAfterMs'>;
}

/** One message, retried: the service's 429 wait, else backoff. Answers the last outcome. */
async function deliver(body: string, ctx: DeliverContext): Promise<Answer> {
  const { answer } = await postWithRetry(ctx.client, ctx.channel.url, body, {
    timeoutMs: ctx.timeoutMs,
    signal: ctx.signal,
    read: 'answer',
    attempts: ctx.options.attempts ?? 6,
    backoffMs: ctx.options.backoffMs ?? 1000,
    maxRetryAfterMs: ctx.options.maxRetryAfterMs,
  });
  return answer;
}

/** `chainvisor notify --test`: one test message per channel, each sent once (a 429 is waited once). */
export async function sendTestNotices(
  channels: Channel[],
  options: { facts: NodeFacts; timeoutMs?: number; env?: Readonly<Record<string, string | undefined>> },
): Promise<Array<{ channel: string; answer: Answer }>> {
  const client = createHttpClient({ timeoutMs: options.timeoutMs ?? 10_000, ...(options.env === undefined ? {} : { env: options.env }) });
  const signal = new AbortController().signal;
  const notice = noticeOf(
    { event: testEvent as SupervisorEvent['event'], text: `chainvisor on ${os.hostname()} can reach this channel; nothing needs doing.`, time: Date.now() },
    options.facts,
  );
  try {
    return await Promise.all(
      channels.map(async (channel) => {
        let answer: Answer = { ok: true, status: 0 };
        for (const body of channel.formatter(options.facts)(notice)) {
          answer = await deliver(body, {
            client,
            channel,
            timeoutMs: options.timeoutMs ?? 10_000,
            signal,
            options: { attempts: 2, backoffMs: 1000, maxRetryAfterMs: 10_000 },
          });
          if (!answer.ok) answer = { ...answer, reason: scrubSecrets(answer.reason, channel.secrets) };
          if (!answer.ok) break;
        }
        return { channel: channel.name, answer };
      }),
    );
  } finally {
    await client.close();
  }
}
