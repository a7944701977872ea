/**
 * The Prometheus metrics behind `GET /metrics`, with prom-client: the default process metrics and the
 * chainvisor_* series (./metric-series.ts) named in docs/monitoring.md. Counters and histograms follow
 * the event bus (./metrics-events.ts); the gauges that describe a state (node up, current, pending,
 * blocks left, binary present, ETA, block time) are read from the status document at scrape time, here,
 * so they can never drift from `/status`. `chainvisor_node_info` names the chain and the node.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';

import type { EventBus } from '../shared/events/index.js';
import { createSeries } from './metric-series.js';
import { followEvents } from './metrics-events.js';

/** What the state gauges need at each scrape (a subset of the status document). */
export interface MetricsSnapshot {
  nodeUp: boolean;
  current: string;
  pending: { name: string; height: number; blocksRemaining: number | null; binaryPresent: boolean; eta?: { seconds: number } | null } | null;
  /** Seconds per block over the recent blocks (shared/eta.ts); null while unknown. */
  blockTimeSeconds?: number | null;
  /** The last rehearsal of each upgrade (`chainvisor rehearse`). */
  rehearsals?: { upgrade: string; result: 'passed' | 'failed'; migration_seconds: number | null }[];
  /** Upgrade proposals in their voting period (issue #45). */
  proposals?: { id: string; name: string; height: string; votingEnd: string | null }[];
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
  'chainvisor_process_private_memory_bytes',
  'chainvisor_upgrade_proposal_info',
  'chainvisor_upgrade_proposal_voting_end_timestamp_seconds',
] as const;

export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  // The event-loop delay monitor samples every 10 ms by default: a wake-up a supervisor that idles for
  // weeks does not need (idle CPU budget 0.2 %); once a second is plenty to see a stuck loop.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 1000 });

  const series = createSeries(registry);
  series.buildInfo.set({ version: options.version }, 1);
  options.identity?.then(
    (id) => series.info.set({ chain_id: id.chainId, node: id.node, daemon_name: id.daemonName }, 1),
    () => undefined,
  );
  const { nodeUp, current, pending, remaining, present, eta, blockTime, rehearsalResult, rehearsalMigration, proposalInfo, proposalVotingEnd } = series;
  const events = followEvents(options.bus, series);
  let renderedAt = 0;
  let rendered: () => void = () => undefined;

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
    proposalInfo.reset();
    proposalVotingEnd.reset();
    for (const p of snap.proposals ?? []) {
      proposalInfo.set({ id: p.id, name: p.name, height: p.height }, 1);
      if (p.votingEnd !== null) proposalVotingEnd.set({ id: p.id }, Date.parse(p.votingEnd) / 1000);
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
      const keyInUseAt = events.keyInUseAt();
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
      events.off();
      registry.clear();
    },
  };
}
