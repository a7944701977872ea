/**
 * The log lines of an upgrade's lifecycle, as a listener of the event bus: the sequence emits
 * upgrade-detected, upgrade-applied and upgrade-failed once each (sequence.ts), the follow
 * network-waiting, upgrade-confirmed, validator-not-signing and upgrade-stalled (upgrade/8-follow.ts), and the log
 * follows them like metrics, status and webhooks do, rather than being written beside each emit.
 */
import type { EventBus } from '../shared/events/index.js';
import type { Logger } from '../shared/log.js';

/** How an upgrade was detected: the run loop says it, the upgrade-detected event carries it (its `data`). */
export interface Detected {
  how: 'start-up' | 'halted' | 'manual-halted' | 'due' | 'manual-due';
  /** How the node exited, when its exit showed the halt. */
  node?: string;
}

const detectedLine: Record<Detected['how'], { level: 'warn' | 'info'; msg: string }> = {
  'start-up': { level: 'warn', msg: 'an upgrade is already due at start-up; applying it before starting the node' },
  halted: { level: 'info', msg: 'node halted for an upgrade' },
  'manual-halted': { level: 'info', msg: 'node halted at the manual upgrade height' },
  due: { level: 'info', msg: 'upgrade needed; stopping the node' },
  'manual-due': { level: 'info', msg: 'manual upgrade height reached; stopping the node' },
};

/**
 * Logs each lifecycle event of an upgrade as its line; `failures: false` leaves upgrade-failed to a
 * caller that reports the failure itself (a rehearsal). Returns the unsubscribe.
 */
export function logUpgradeEvents(events: EventBus, logger: Logger, options: { failures?: boolean } = {}): () => void {
  return events.on((e) => {
    if (e.upgrade === undefined) return;
    const fields = { event: e.event, upgrade: e.upgrade.name, height: e.upgrade.height };
    switch (e.event) {
      case 'upgrade-detected': {
        const detected = e.data as Detected | undefined;
        if (detected?.how === undefined) return;
        const line = detectedLine[detected.how];
        logger[line.level]({ ...fields, ...(detected.node === undefined ? {} : { node: detected.node }) }, line.msg);
        return;
      }
      case 'upgrade-applied':
        logger.info({ ...fields, current: e.data?.dir }, 'upgrade applied: current now points at the new binary');
        return;
      case 'upgrade-failed':
        if (options.failures !== false) logger.error({ ...fields, code: e.data?.code }, e.text);
        return;
      // The after-upgrade follow (upgrade/8-follow.ts): its fields beside `event`, and its one-line sentence.
      case 'network-waiting':
      case 'upgrade-confirmed':
      case 'validator-not-signing':
      case 'upgrade-stalled': {
        const { upgrade: _name, since: _since, ...after } = e.data ?? {};
        const level = e.event === 'validator-not-signing' ? 'error' : e.event === 'upgrade-stalled' || after.signed === false ? 'warn' : 'info';
        logger[level]({ ...fields, ...after }, e.text);
        return;
      }
      default:
    }
  });
}
