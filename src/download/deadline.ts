/**
 * CHAINVISOR_DOWNLOAD_DEADLINE for one fetch: a signal that fires when the caller cancels or when the
 * deadline runs out, whichever comes first, and a way to tell the two apart (a cancelled download is
 * chainvisor stopping; an expired one is a failed upgrade, exit 79).
 */
export interface Deadline {
  /** Aborted by the caller or by the deadline. */
  signal: AbortSignal;
  /** The deadline (not the caller) ended the fetch. */
  expired(): boolean;
  /** Stops the timer; call it when the fetch ends, however it ends. */
  clear(): void;
}

/** No deadline when `deadlineMs` is undefined (the signal is then the caller's alone). */
export function startDeadline(deadlineMs: number | undefined, caller: AbortSignal | undefined): Deadline {
  const timeUp = new AbortController();
  const timer = deadlineMs === undefined ? undefined : setTimeout(() => timeUp.abort(new Error('CHAINVISOR_DOWNLOAD_DEADLINE ran out')), deadlineMs);
  return {
    signal: caller === undefined ? timeUp.signal : AbortSignal.any([caller, timeUp.signal]),
    expired: () => timeUp.signal.aborted,
    clear: () => clearTimeout(timer),
  };
}
