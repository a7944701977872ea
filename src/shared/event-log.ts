/**
 * The log lines of the bus's events, as one listener: an event is emitted once, where it happens, and
 * its log line follows it here, as metrics, status and webhooks do, never written beside the emit. Each
 * event that is logged has its line here: the upgrade's lifecycle (upgrade-detected, -applied, -failed:
 * the sequence, src/supervisor/upgrade/compose.ts), the follow after it (network-waiting,
 * upgrade-confirmed, validator-not-signing, upgrade-stalled), the plan on chain and its staging
 * (upgrade-scheduled, -rescheduled, -cancelled, binary-staged, staging-failed, checksum-disagreement), a manual upgrade queued, the node
 * started and exited, rehearsals' results, a restore, a node outside DAEMON_HOME and the proposals while they are voted
 * (upgrade-proposed, vote-missing, proposal-problem). The twin check's events have their own
 * listener beside their check (src/guard/twin-log.ts).
 */
import type { EventBus, SupervisorEvent } from './events/index.js';
import type { Logger } from './log.js';
import { describeExit } from './proc/index.js';

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
 * Logs each event that has a line, as its line; `failures: false` leaves upgrade-failed to a caller that
 * reports the failure itself (a rehearsal). Returns the unsubscribe.
 */
export function logEvents(events: EventBus, logger: Logger, options: { failures?: boolean } = {}): () => void {
  // The plan watch's lines (src/watcher/plan-watch.ts, and its stager in src/download/staging/stager.ts) carry its component, as its own logger's did.
  let planWatch: Logger | undefined;
  const planWatchLogger = () => (planWatch ??= logger.child({ component: 'plan-watcher' }));
  return events.on((e) => {
    const data = e.data ?? {};
    switch (e.event) {
      case 'node-started':
        logger.info({ event: e.event, binary: data.binary, args: data.args, current: data.current }, 'starting node');
        return;
      case 'node-exited':
        logNodeExited(e, logger);
        return;
      case 'data-restored':
        logger.info(
          { event: e.event, backup: data.backup, replaced: data.replaced, signing: data.signing, current: (data.current as { to?: unknown }).to },
          e.text,
        );
        return;
      // The node lives outside DAEMON_HOME (src/guard/home-check.ts): refused (84) or a warning.
      case 'home-mismatch':
        logger[data.refused === true ? 'error' : 'warn']({ event: e.event, nodeHome: data.nodeHome, daemonHome: data.daemonHome, seen: data.seen }, e.text);
        return;
      default:
    }
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
      // The after-upgrade follow (src/supervisor/upgrade/network-follow.ts): its fields beside `event`, and its one-line sentence.
      case 'network-waiting':
      case 'upgrade-confirmed':
      case 'validator-not-signing':
      case 'upgrade-stalled': {
        const { upgrade: _name, since: _since, ...after } = data;
        const level = e.event === 'validator-not-signing' ? 'error' : e.event === 'upgrade-stalled' || after.signed === false ? 'warn' : 'info';
        logger[level]({ ...fields, ...after }, e.text);
        return;
      }
      // A manual upgrade queued (src/watcher/manual), or a plan seen on chain by the plan watch.
      case 'upgrade-scheduled':
        if (data.manual === true) logger.info(fields, e.text);
        else planWatchLogger().info({ ...fields, info: data.info }, e.text);
        return;
      case 'upgrade-rescheduled':
        planWatchLogger().info({ ...fields, from: data.from, info: data.info }, e.text);
        return;
      case 'upgrade-cancelled':
        planWatchLogger().warn({ ...fields, ...(data.replacedBy === undefined ? {} : { replacedBy: data.replacedBy }) }, e.text);
        return;
      case 'binary-staged':
        planWatchLogger().info({ ...fields, binary: data.binary, status: data.status, ...(data.source === undefined ? {} : { source: data.source }) }, e.text);
        return;
      case 'checksum-disagreement':
        planWatchLogger().error({ ...fields, sources: data.sources }, e.text);
        return;
      // The first failed attempt (later ones are logged where they happen: they are no event), or the binary still missing near the height.
      case 'staging-failed':
        if (data.blocksLeft === undefined) planWatchLogger().warn({ ...fields, attempt: data.attempt }, e.text);
        else planWatchLogger().error({ ...fields, blocksLeft: data.blocksLeft }, e.text);
        return;
      case 'rehearsal-passed':
      case 'rehearsal-failed':
        logger[e.event === 'rehearsal-passed' ? 'info' : 'error']({ event: e.event, upgrade: e.upgrade.name, ...data }, e.text);
        return;
      // Governance (src/supervisor/governance): proposals while they are voted.
      case 'upgrade-proposed':
        logger[data.tooLateToCancel == null ? 'info' : 'warn']({ ...fields, proposal: data.proposal, votingEnd: data.votingEnd }, e.text);
        return;
      case 'vote-missing':
        logger.warn({ ...fields, proposal: data.proposal, votingEnd: data.votingEnd }, e.text);
        return;
      case 'proposal-problem':
        logger.error({ ...fields, proposal: data.proposal, problem: data.problem }, e.text);
        return;
      default:
    }
  });
}

/** A node's exit with no upgrade pending (src/supervisor/restart): loud when it failed soon after an upgrade. */
function logNodeExited(e: SupervisorEvent, logger: Logger): void {
  const data = e.data ?? {};
  const node = describeExit({ code: data.code as number | undefined, signal: data.signal as NodeJS.Signals | undefined });
  if (typeof data.crashedAfterSeconds === 'number') {
    logger.error(
      { event: e.event, node, upgrade: data.afterUpgrade, restarts: data.restarts },
      'CRASH AFTER UPGRADE: the node of upgrade "%s" failed %d s after the switch; check the new binary and its logs (%s)',
      data.afterUpgrade,
      data.crashedAfterSeconds,
      e.text,
    );
  } else {
    logger.info({ event: e.event, node, restarts: data.restarts }, e.text);
  }
}
