/**
 * The runner's ticks, one at a time: a wake-up during a tick (the file changed) runs another right after
 * it; otherwise the next one waits for the timer, which is set only while `wanted()` says there is
 * something to watch (an idle `run` reads nothing: quiet at rest).
 */
export interface TickLoopOptions {
  tick(): Promise<void>;
  intervalMs: number;
  /** Whether a timed tick is wanted once this one is over. */
  wanted(): boolean;
}

export interface TickLoop {
  /** Runs a tick now (the file changed, or the timer fired), or right after the one running. */
  kick(): void;
  /** Sets the timer for the next tick, if one is wanted. */
  schedule(): void;
  close(): void;
}

export function createTickLoop(options: TickLoopOptions): TickLoop {
  let timer: NodeJS.Timeout | undefined;
  let ticking = false;
  let again = false;
  let closed = false;

  const schedule = (): void => {
    if (closed || !options.wanted()) return;
    timer = setTimeout(kick, options.intervalMs);
    timer.unref();
  };

  const kick = (): void => {
    if (closed) return;
    clearTimeout(timer);
    timer = undefined;
    if (ticking) {
      again = true;
      return;
    }
    ticking = true;
    void options.tick().finally(() => {
      ticking = false;
      if (again) {
        again = false;
        kick();
      } else {
        schedule();
      }
    });
  };

  return {
    kick,
    schedule,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
    },
  };
}
