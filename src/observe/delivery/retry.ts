/**
 * One message to one receiver, retried: after the wait a 429 asks for (at most `maxRetryAfterMs`),
 * else with exponential backoff (`backoffMs` doubled per attempt, at most 30 s, ±20 %), for at most
 * `attempts` attempts. The same loop for the webhooks and every alert channel; each says its own words
 * through `onRetry` and the outcome.
 */
import { backoffMs } from '../../shared/backoff.js';
import type { HttpClient } from '../../shared/net/index.js';
import { type Answer, postJson, type PostOptions } from './post.js';

export interface RetryOptions extends PostOptions {
  attempts: number;
  /** The first backoff. */
  backoffMs: number;
  /** The longest 429 wait obeyed (default 5 min); a longer one waits this long. */
  maxRetryAfterMs?: number | undefined;
  /** A failed attempt that is retried, after `waitMs`. */
  onRetry?(answer: Answer & { ok: false }, attempt: number, waitMs: number): void;
}

/**
 * The last answer and its attempt; `stopped` when the signal ended the loop before an answer was
 * final (then `answer` is the last one, or "not sent").
 */
export interface Delivery {
  answer: Answer;
  attempt: number;
  stopped: boolean;
}

export async function postWithRetry(client: HttpClient, url: URL, body: string, options: RetryOptions): Promise<Delivery> {
  let answer: Answer = { ok: false, retry: false, reason: 'not sent' };
  let attempt = 1;
  for (; attempt <= options.attempts && !options.signal.aborted; attempt++) {
    answer = await postJson(client, url, body, options);
    if (answer.ok || !answer.retry || attempt === options.attempts) return { answer, attempt, stopped: false };
    const wait =
      answer.retryAfterMs === undefined
        ? backoffMs({ attempt, baseMs: options.backoffMs, maxMs: 30_000, jitter: { min: 0.8, spread: 0.4 } })
        : Math.min(answer.retryAfterMs, options.maxRetryAfterMs ?? 300_000);
    options.onRetry?.(answer, attempt, wait);
    await sleep(wait, options.signal);
  }
  return { answer, attempt: attempt - 1, stopped: true };
}

/** Waits `ms`, or less when `signal` aborts; never rejects. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
