/**
 * chainvisor asked to stop: SIGTERM, SIGINT and SIGQUIT are forwarded to the node, then SIGKILL after
 * DAEMON_SHUTDOWN_GRACE (0: wait however long the node takes); a second stop signal kills at once.
 * SIGHUP is only forwarded. chainvisor then exits with the node's status (128+N when it died of N).
 */
import { constants } from 'node:os';

import { ChainvisorError } from '../shared/errors/index.js';
import type { Logger } from '../shared/log.js';
import { describeExit, exitCodeOf, type ExitStatus, type NodeProcess } from './node-process.js';

const stopSignals = ['SIGTERM', 'SIGINT', 'SIGQUIT'] as const;
const forwardedSignals = [...stopSignals, 'SIGHUP'] as const;

export interface StopOptions {
  logger: Logger;
  /** DAEMON_SHUTDOWN_GRACE (ms). */
  graceMs: number;
  /** The node running now, if any. */
  node: () => NodeProcess | undefined;
  /** Called once, at the first stop signal, after it was forwarded. */
  onStop: (signal: NodeJS.Signals) => void;
}

/**
 * How long a node's exit waits for chainvisor's own stop signal before it is judged a failure. A signal
 * to the group (Ctrl-C, systemd's KillMode=control-group) reaches both processes at once, so it arrives
 * within milliseconds of the node's exit; a crash's restart waits this much longer.
 */
export const groupSignalSettleMs = 250;

export class StopSignals {
  private readonly options: StopOptions;
  private received: NodeJS.Signals | undefined;
  private arrived: (() => void) | undefined;
  private readonly offs: Array<() => void>;

  /** Installs the handlers; `dispose()` removes them. */
  constructor(options: StopOptions) {
    this.options = options;
    this.offs = forwardedSignals.map((signal) => {
      const handler = () => this.onSignal(signal);
      process.on(signal, handler);
      return () => process.off(signal, handler);
    });
  }

  /** The stop signal received, if any. */
  get signal(): NodeJS.Signals | undefined {
    return this.received;
  }

  /** The shell's convention for having been stopped by the signal received: 128 + its number. */
  get exitCode(): number {
    return 128 + (this.received === undefined ? 0 : (constants.signals[this.received] ?? 0));
  }

  /** True once a stop signal has arrived, waiting up to `ms` for one that is on its way. */
  async within(ms: number): Promise<boolean> {
    if (this.received) return true;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.arrived = done;
    });
    this.arrived = undefined;
    return this.received !== undefined;
  }

  /**
   * The stop ended an upgrade sequence: whatever ended it (an abort, a cancelled download) is the stop's
   * doing, not a failed upgrade. One line without a stack for a known error or the abort itself; anything
   * else keeps its stack, as a bug would. Returns the exit code.
   */
  stoppedMidUpgrade(error: unknown): number {
    const signal = this.received;
    const known = error instanceof ChainvisorError;
    const aborted = error instanceof Error && error.name === 'AbortError';
    this.options.logger.warn(
      known ? { signal, code: error.code } : aborted ? { signal } : { signal, err: error },
      `stopped while applying an upgrade; current was not switched — start chainvisor again to finish it${known ? ` (${error.message})` : ''}`,
    );
    return this.exitCode;
  }

  /** The node has stopped after the stop: chainvisor exits with its status (a warning when neither clean nor the stop's: a crash that met the stop). */
  nodeStopped(status: ExitStatus): number {
    const byStop = status.code === 0 || status.signal === this.received || status.code === this.exitCode;
    this.options.logger[byStop ? 'info' : 'warn']({ event: 'node-stopped', node: describeExit(status) }, 'node stopped; chainvisor exits with its status');
    return exitCodeOf(status);
  }

  dispose(): void {
    for (const off of this.offs) off();
  }

  private onSignal(signal: NodeJS.Signals): void {
    const { logger, graceMs } = this.options;
    const node = this.options.node();
    if (signal === 'SIGHUP') {
      node?.signal(signal);
      return;
    }
    if (this.received) {
      logger.warn({ signal }, 'second stop signal: killing the node now');
      node?.signal('SIGKILL');
      return;
    }
    this.received = signal;
    logger.info({ signal }, 'asked to stop; forwarding to the node');
    if (node && !node.hasExited()) {
      node.signal(signal);
      if (graceMs > 0) {
        setTimeout(() => {
          if (!node.hasExited()) {
            logger.warn({ graceMs }, 'node still running after DAEMON_SHUTDOWN_GRACE; sending SIGKILL');
            node.signal('SIGKILL');
          }
        }, graceMs).unref();
      }
    }
    this.options.onStop(signal);
    this.arrived?.();
  }
}
