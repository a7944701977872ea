/**
 * The Prometheus metrics behind `GET /metrics`, with prom-client: the default process metrics and the
 * chainvisor_* series named in the documentation (docs/monitoring.md). Counters and histograms follow
 * the event bus; the gauges that describe a state (node up, current, pending, blocks left, binary
 * present, ETA, block time) are read from the status document at scrape time, so they can never drift
 * from `/status`. `chainvisor_node_info` names the chain and the node, for a fleet to group and join by.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

import type { EventBus } from '../shared/events/index.js';

/** What the state gauges need at each scrape (a subset of the status document). */
export interface MetricsSnapshot {
  nodeUp: boolean;
  current: string;
  pending: { name: string; height: number; blocksRemaining: number | null; binaryPresent: boolean; eta?: { seconds: number } | null } | null;
  /** Seconds per block over the recent blocks (shared/eta.ts); null while unknown. */
  blockTimeSeconds?: number | null;
  /** The last rehearsal of each upgrade (`chainvisor rehearse`). */
  rehearsals?: { upgrade: string; result: 'passed' | 'failed'; migration_seconds: number | null }[];
}

export interface MetricsOptions {
  bus: EventBus;
  version: string;
  snapshot: () => Promise<MetricsSnapshot>;
  /** The genesis chain id, the node's moniker and DAEMON_NAME, read in the background: chainvisor_node_info once known. */
  identity?: Promise<NodeIdentity>;
}

export interface NodeIdentity {
  /** `unknown` when the genesis names none. */
  chainId: string;
  node: string;
  daemonName: string;
}

export interface Metrics {
  contentType: string;
  render(): Promise<string>;
  /**
   * After key-in-use (issue #32), resolves once a scrape has read `chainvisor_key_in_use 1`, at most
   * `maxMs` later (at once when nothing is to be read): `run` exits right after the event, and an alert
   * on a gauge no scrape saw would never fire.
   */
  alertRead(maxMs: number, signal: AbortSignal): Promise<void>;
  close(): void;
}

/** Every chainvisor_* metric name; the dashboard and alert rules in docs/ may use only these. */
export const metricNames = [
  'chainvisor_build_info',
  'chainvisor_node_up',
  'chainvisor_node_restarts_total',
  'chainvisor_current_upgrade_info',
  'chainvisor_upgrade_pending',
  'chainvisor_upgrade_blocks_remaining',
  'chainvisor_upgrade_binary_present',
  'chainvisor_upgrades_total',
  'chainvisor_upgrade_duration_seconds',
  'chainvisor_download_bytes_total',
  'chainvisor_backup_duration_seconds',
  'chainvisor_rehearsal_result',
  'chainvisor_rehearsal_migration_seconds',
  'chainvisor_network_prevote_ratio',
  'chainvisor_upgrade_confirmed',
  'chainvisor_upgrade_confirm_seconds',
  'chainvisor_validator_signed',
  'chainvisor_key_in_use',
  'chainvisor_node_info',
  'chainvisor_upgrade_eta_seconds',
  'chainvisor_block_time_seconds',
] as const;

export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  // The event-loop delay monitor samples every 10 ms by default: a wake-up a supervisor that idles for
  // weeks does not need (idle CPU budget 0.2 %); once a second is plenty to see a stuck loop.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 1000 });
  const registers = [registry];

  new Gauge({ name: 'chainvisor_build_info', help: 'Always 1; the version label says which chainvisor runs.', labelNames: ['version'], registers }).set(
    { version: options.version },
    1,
  );
  // Gauges with labels, registered here: one line each.
  const gauge = (name: string, help: string, labelNames: string[]) => new Gauge({ name, help, labelNames, registers });
  const nodeUp = new Gauge({ name: 'chainvisor_node_up', help: '1 while the node process runs under chainvisor, else 0.', registers });
  const restarts = new Counter({ name: 'chainvisor_node_restarts_total', help: 'Node starts after the first one (upgrades and restarts).', registers });
  const current = gauge('chainvisor_current_upgrade_info', 'Always 1; name is the upgrade current points at (genesis before any).', ['name']);
  const pending = gauge('chainvisor_upgrade_pending', '1 while an upgrade is known (on chain or in the halt file), labelled with its name and height.', [
    'name',
    'height',
  ]);
  const remaining = gauge(
    'chainvisor_upgrade_blocks_remaining',
    'Blocks until the pending upgrade height (present while an upgrade is pending and the chain height is known).',
    ['name', 'height'],
  );
  const eta = gauge(
    'chainvisor_upgrade_eta_seconds',
    'Estimated seconds until the pending upgrade height, from the block time over the recent blocks (present while it can be estimated).',
    ['name'],
  );
  const blockTime = new Gauge({
    name: 'chainvisor_block_time_seconds',
    help: "The chain's mean block time over the last 500 blocks read (fewer after a start); absent until two heights have been read.",
    registers,
  });
  const info = gauge(
    'chainvisor_node_info',
    "Always 1: chain_id (the genesis file's), node (the moniker in config.toml, else the host name) and daemon_name (DAEMON_NAME). A fleet groups and joins by it.",
    ['chain_id', 'node', 'daemon_name'],
  );
  options.identity?.then(
    (id) => info.set({ chain_id: id.chainId, node: id.node, daemon_name: id.daemonName }, 1),
    () => undefined,
  );
  const present = gauge('chainvisor_upgrade_binary_present', '1 when the pending upgrade binary is installed in upgrades/<name>, else 0.', ['name']);
  const upgrades = new Counter({ name: 'chainvisor_upgrades_total', help: 'Upgrades attempted, by result.', labelNames: ['result'], registers });
  upgrades.inc({ result: 'applied' }, 0);
  upgrades.inc({ result: 'failed' }, 0);
  const upgradeDuration = new Histogram({
    name: 'chainvisor_upgrade_duration_seconds',
    help: 'Halt detected → new node started.',
    buckets: [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600],
    registers,
  });
  const downloaded = new Counter({ name: 'chainvisor_download_bytes_total', help: 'Bytes downloaded for upgrade binaries.', registers });
  const backupDuration = new Histogram({
    name: 'chainvisor_backup_duration_seconds',
    help: 'Duration of data backups before upgrades.',
    buckets: [1, 5, 15, 60, 300, 900, 1800, 3600, 7200, 14400],
    registers,
  });

  const rehearsalResult = gauge('chainvisor_rehearsal_result', 'The last rehearsal of each upgrade: 1 passed, 0 failed (chainvisor rehearse).', ['upgrade']);
  const rehearsalMigration = gauge(
    'chainvisor_rehearsal_migration_seconds',
    "The last rehearsal of each upgrade: seconds from the halt to the new binary's first block on the copy.",
    ['upgrade'],
  );

  // After an upgrade (issue #26): the follow's events (src/supervisor/upgrade/network-follow.ts).
  const prevoteRatio = gauge(
    'chainvisor_network_prevote_ratio',
    'After an upgrade, while the network waits for the first block at the height: the share (0-1) of the voting power that prevoted in the current round.',
    ['upgrade'],
  );
  const confirmed = gauge(
    'chainvisor_upgrade_confirmed',
    'After an upgrade: 1 once the network committed the first block at or past the height (seen by the follow, or a later height read), 0 while it waits.',
    ['upgrade'],
  );
  const confirmSeconds = gauge('chainvisor_upgrade_confirm_seconds', 'Seconds from the switch to the time of the first block at or past the upgrade height.', [
    'upgrade',
  ]);
  const signed = gauge(
    'chainvisor_validator_signed',
    "After an upgrade: 1 when this node's validator signed the first block at the height, or signs again after not signing; 0 while it is not signing; absent for a node with no voting power.",
    ['upgrade'],
  );

  // Never two signers (issue #32): the twin check's key-in-use and twin-checked events.
  const keyInUse = new Gauge({
    name: 'chainvisor_key_in_use',
    help: "The twin check's last finding: 1 when it saw this validator's key sign on another machine (the node is stopped, chainvisor exits 84), 0 when it found it clear; absent before a check in this run.",
    registers,
  });
  // Absent until a check says something: a 0 at start would end the alert before the check has looked.
  keyInUse.remove({});
  // The upgrade the after-upgrade series describe, and whether the network still waits for its first block.
  let applied: { name: string; height: number } | undefined;
  let waiting = false;

  let keyInUseAt: number | undefined;
  let renderedAt = 0;
  let rendered: () => void = () => undefined;

  let detectedAt: number | undefined;
  let started = false;
  const off = options.bus.on((event) => {
    const data = event.data ?? {};
    switch (event.event) {
      case 'node-started':
        if (started) restarts.inc();
        started = true;
        if (detectedAt !== undefined) upgradeDuration.observe(Math.max(0, event.time - detectedAt) / 1000);
        detectedAt = undefined;
        break;
      case 'upgrade-applied':
        upgrades.inc({ result: 'applied' });
        // The after-upgrade series describe the last upgrade only.
        for (const g of [prevoteRatio, confirmed, confirmSeconds, signed]) g.reset();
        applied = event.upgrade;
        waiting = false;
        // The duration ends when the new node starts; the supervisor says how long ago the halt was seen.
        detectedAt = typeof data.ms === 'number' ? event.time - data.ms : event.time;
        break;
      case 'upgrade-failed':
        upgrades.inc({ result: 'failed' });
        break;
      case 'download-progress':
        if (typeof data.delta === 'number' && data.delta > 0) downloaded.inc(data.delta);
        break;
      case 'backup-done':
        if (typeof data.ms === 'number') backupDuration.observe(data.ms / 1000);
        break;
      case 'consensus-round':
      case 'network-waiting':
      case 'upgrade-stalled': {
        const labels = { upgrade: String(data.upgrade) };
        if (typeof data.prevoteRatio === 'number') prevoteRatio.set(labels, data.prevoteRatio);
        confirmed.set(labels, 0);
        waiting = true;
        break;
      }
      case 'chain-height':
        // The follow ends with the node (an exit, a restart): a later height read says the network went on
        // (past the height: a manual upgrade's first block is the height + 1), and the stall is over.
        if (waiting && applied && typeof data.height === 'number' && data.height > applied.height) {
          waiting = false;
          prevoteRatio.remove({ upgrade: applied.name });
          confirmed.set({ upgrade: applied.name }, 1);
        }
        break;
      case 'upgrade-confirmed': {
        const labels = { upgrade: String(data.upgrade) };
        prevoteRatio.remove(labels);
        confirmed.set(labels, 1);
        waiting = false;
        if (typeof data.seconds === 'number') confirmSeconds.set(labels, data.seconds);
        if (typeof data.signed === 'boolean') signed.set(labels, data.signed ? 1 : 0);
        break;
      }
      case 'validator-not-signing':
        signed.set({ upgrade: String(data.upgrade) }, 0);
        break;
      case 'key-in-use':
        keyInUse.set(1);
        keyInUseAt = event.time;
        break;
      case 'twin-checked':
        if (data.state === 'clear') keyInUse.set(0);
        break;
      // 'unchecked' and 'off' leave the last finding as it was: nothing new is known.
      default:
    }
  });

  const refresh = async (): Promise<void> => {
    const snap = await options.snapshot();
    nodeUp.set(snap.nodeUp ? 1 : 0);
    current.reset();
    current.set({ name: snap.current }, 1);
    pending.reset();
    remaining.reset();
    present.reset();
    eta.reset();
    // Absent, not 0, while unknown (an unlabelled gauge shows 0 unless its one series is removed).
    if (typeof snap.blockTimeSeconds === 'number') blockTime.set(snap.blockTimeSeconds);
    else blockTime.remove({});
    if (snap.pending) {
      const labels = { name: snap.pending.name, height: String(snap.pending.height) };
      pending.set(labels, 1);
      if (snap.pending.blocksRemaining !== null) remaining.set(labels, snap.pending.blocksRemaining);
      present.set({ name: snap.pending.name }, snap.pending.binaryPresent ? 1 : 0);
      if (snap.pending.eta) eta.set({ name: snap.pending.name }, snap.pending.eta.seconds);
    }
    rehearsalResult.reset();
    rehearsalMigration.reset();
    for (const r of snap.rehearsals ?? []) {
      rehearsalResult.set({ upgrade: r.upgrade }, r.result === 'passed' ? 1 : 0);
      if (r.migration_seconds !== null) rehearsalMigration.set({ upgrade: r.upgrade }, r.migration_seconds);
    }
  };

  return {
    contentType: registry.contentType,
    async render() {
      await refresh();
      const text = await registry.metrics();
      renderedAt = Date.now();
      rendered();
      return text;
    },
    async alertRead(maxMs, signal) {
      if (keyInUseAt === undefined || renderedAt >= keyInUseAt || signal.aborted) return;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, maxMs);
        signal.addEventListener('abort', done, { once: true });
        rendered = done;
      });
    },
    close() {
      off();
      registry.clear();
    },
  };
}
