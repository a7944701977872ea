/**
 * The chainvisor_* series behind `GET /metrics` (docs/monitoring.md): each one's name, help, labels and
 * buckets, registered in the order `/metrics` lists them. What sets them: ./metrics.ts (from the status
 * at each scrape) and ./metrics-events.ts (from the event bus).
 */
import { readFileSync } from 'node:fs';

import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Creates every series in `registry`; counters start at 0, the twin check's gauge absent. */
export function createSeries(registry: Registry) {
  const registers = [registry];
  // Gauges with labels, registered here: one line each.
  const gauge = (name: string, help: string, labelNames: string[]) => new Gauge({ name, help, labelNames, registers });
  const buildInfo = gauge('chainvisor_build_info', 'Always 1; the version label says which chainvisor runs.', ['version']);
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
  // The process's private memory (RssAnon): what the README's ≈25 MiB is, where RSS also counts the executable's own pages.
  new Gauge({
    name: 'chainvisor_process_private_memory_bytes',
    help: "chainvisor's private resident memory (RssAnon of /proc/self/status), without the pages of its executable file; absent where /proc is not.",
    registers,
    collect() {
      const bytes = privateMemoryBytes();
      if (bytes === undefined) this.remove({});
      else this.set(bytes);
    },
  });
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

  // Upgrade proposals in their voting period (issue #45, docs/governance.md).
  const proposalInfo = gauge(
    'chainvisor_upgrade_proposal_info',
    'Always 1, one series per upgrade proposal in its voting period: id (the proposal), name and height (its plan).',
    ['id', 'name', 'height'],
  );
  const proposalVotingEnd = gauge(
    'chainvisor_upgrade_proposal_voting_end_timestamp_seconds',
    "When each upgrade proposal's voting period ends, in seconds since the epoch.",
    ['id'],
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

  return {
    buildInfo,
    nodeUp,
    restarts,
    current,
    pending,
    remaining,
    eta,
    blockTime,
    info,
    present,
    upgrades,
    upgradeDuration,
    downloaded,
    backupDuration,
    rehearsalResult,
    rehearsalMigration,
    proposalInfo,
    proposalVotingEnd,
    prevoteRatio,
    confirmed,
    confirmSeconds,
    signed,
    keyInUse,
  };
}

export type Series = ReturnType<typeof createSeries>;

/** RssAnon of /proc/self/status in bytes; undefined where there is no such line (not Linux). */
function privateMemoryBytes(): number | undefined {
  try {
    const kib = /^RssAnon:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}
