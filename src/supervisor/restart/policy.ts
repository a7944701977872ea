/**
 * What to do when the node exits on its own with no upgrade to apply. cosmovisor exits with the node's
 * status, which suits systemd (it restarts chainvisor); containers without a restart policy and hosts
 * without systemd ask for a bounded restart instead (CHAINVISOR_RESTART_ON_FAILURE):
 *   - only failures are restarted (a non-zero status or a signal); an exit 0 is an orderly stop;
 *   - at most CHAINVISOR_RESTART_MAX restarts, waiting CHAINVISOR_RESTART_BACKOFF, then twice as long
 *     each time (at most 60 s); the count starts again once the node has run for 10 minutes;
 *   - past the limit chainvisor exits with the node's status.
 */
import { backoffMs } from '../../shared/backoff.js';

export interface RestartSettings {
  restartOnFailure: boolean;
  restartMax: number;
  restartBackoff: number;
}

export type RestartDecision = { restart: true; delayMs: number; restarts: number } | { restart: false; restarts: number; why: string };

/** A node that ran this long is considered healthy again: the restart count starts over. */
export const healthyRunMs = 10 * 60 * 1000;
export const maxBackoffMs = 60 * 1000;

export class RestartPolicy {
  private readonly settings: RestartSettings;
  private count = 0;

  constructor(settings: RestartSettings) {
    this.settings = settings;
  }

  /** Restarts made since the count last started over. */
  get restarts(): number {
    return this.count;
  }

  /** The node exited after running `ranMs` with `status` and nothing to apply: restart it? */
  decide(status: { code: number | undefined; signal: string | undefined }, ranMs: number): RestartDecision {
    if (ranMs >= healthyRunMs) this.count = 0;
    const failed = status.signal !== undefined || status.code !== 0;
    if (!failed) return { restart: false, restarts: this.count, why: 'the node exited 0 (an orderly stop)' };
    if (!this.settings.restartOnFailure) return { restart: false, restarts: this.count, why: 'CHAINVISOR_RESTART_ON_FAILURE is false' };
    if (this.count >= this.settings.restartMax) {
      return { restart: false, restarts: this.count, why: `restarted ${this.count} times already (CHAINVISOR_RESTART_MAX=${this.settings.restartMax})` };
    }
    // A backoff set above the cap is honoured as it is (it used to be cut to 60 s without a word).
    const delayMs = backoffMs({ attempt: this.count + 1, baseMs: this.settings.restartBackoff, maxMs: Math.max(maxBackoffMs, this.settings.restartBackoff) });
    this.count++;
    return { restart: true, delayMs, restarts: this.count };
  }
}
