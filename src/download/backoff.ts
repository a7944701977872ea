/**
 * When to try again: exponential backoff with jitter, or the server's Retry-After when it asks for
 * longer (capped, so a hostile or confused server cannot park the upgrade for hours). The backoff
 * itself is shared/backoff.ts's, the Retry-After's reading shared/net's.
 */
import { backoffMs } from '../shared/backoff.js';

export interface BackoffOptions {
  /** First delay before jitter; 1 s by default. */
  baseMs: number;
  /** Longest delay; 30 s by default. */
  maxMs: number;
  /** Longest Retry-After honoured; 60 s by default. */
  retryAfterCapMs: number;
}

export const defaultBackoff: BackoffOptions = { baseMs: 1000, maxMs: 30_000, retryAfterCapMs: 60_000 };

/**
 * Delay before retry number `retry` (1 for the first retry). "Equal jitter": half fixed, half random,
 * so several nodes that failed together do not hammer the server in step.
 */
export function retryDelay(retry: number, options: BackoffOptions, retryAfterMs: number | undefined, random: () => number = Math.random): number {
  const jittered = backoffMs({ attempt: retry, baseMs: options.baseMs, maxMs: options.maxMs, jitter: { min: 0.5, spread: 0.5 }, random });
  if (retryAfterMs === undefined) return Math.round(jittered);
  return Math.round(Math.max(jittered, Math.min(retryAfterMs, options.retryAfterCapMs)));
}

/** Resolves after `ms`, or rejects with the signal's reason when it fires first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
