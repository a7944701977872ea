/**
 * The one exponential backoff of every retry loop (downloads, staging, deliveries, restarts, the plan
 * watch, the halt-file watch): `baseMs` doubled per attempt, at most `maxMs`, then spread by a random
 * factor so that nodes which failed together do not ask again in step. Each caller keeps its numbers.
 */
export interface BackoffStep {
  /** 1 for the first wait: it waits `baseMs`, the next twice that, … */
  attempt: number;
  baseMs: number;
  /** The longest wait before the spread. */
  maxMs: number;
  /** The factor the capped wait is multiplied by, drawn from [min, min + spread); none by default. */
  jitter?: { min: number; spread: number };
  /** Tests: the draw in [0, 1); Math.random by default. */
  random?: () => number;
}

export function backoffMs(step: BackoffStep): number {
  const capped = Math.min(step.maxMs, step.baseMs * 2 ** (step.attempt - 1));
  if (step.jitter === undefined) return capped;
  return capped * (step.jitter.min + (step.random ?? Math.random)() * step.jitter.spread);
}
