/**
 * The next switch's two programs, forked ahead (src/shared/proc/standby.ts): a shell for `pre-upgrade` and one
 * for the new node, forked once the node has had a moment to start. Each fork blocks chainvisor's event
 * loop for about 1.5 ms, which a switch then does not pay. One that cannot be used when it is needed (the
 * shell was killed) is dismissed and the program spawned as before.
 */
import type { Logger } from '../shared/log.js';
import { type Standby, startStandby } from '../shared/proc/index.js';

/** How long after a node's start its next switch's standbys are forked (out of the way of its start). */
const standbyDelayMs = 100;

export class Standbys {
  preUpgrade: Standby | undefined;
  node: Standby | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly logger: Logger;

  constructor(logger: Logger) {
    this.logger = logger;
  }

  /** Forks what is missing in a moment; `forNode` false when no node follows a switch (DAEMON_RESTART_AFTER_UPGRADE=false). */
  readySoon(nodeEnv: NodeJS.ProcessEnv | undefined, forNode: boolean): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      try {
        if (!this.preUpgrade?.usable) this.preUpgrade = startStandby({ stdio: 'pipe-output' });
        if (forNode && !this.node?.fits(nodeEnv)) {
          this.node?.dismiss();
          this.node = startStandby({ stdio: 'inherit', env: nodeEnv });
        }
        this.logger.debug(
          { pids: [this.preUpgrade.pid, this.node?.pid] },
          "next switch's pre-upgrade and node forked ahead (waiting shells named chainvisor-standby)",
        );
      } catch (error) {
        // Only a speed-up: never a reason to disturb the running node.
        this.logger.warn({ err: error }, "could not fork the next switch's programs ahead; they will be started at the switch");
      }
    }, standbyDelayMs);
    this.timer.unref();
  }

  /** Forks nothing more (a node that halts at once: the shells are not forked in the middle of its switch). */
  cancel(): void {
    clearTimeout(this.timer);
  }

  /** Cancels, and ends the waiting shells without running anything. */
  dismiss(): void {
    this.cancel();
    this.preUpgrade?.dismiss();
    this.node?.dismiss();
  }
}
