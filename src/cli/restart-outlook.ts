/**
 * What a running `run` does to the node when `add-upgrade --upgrade-height` queues an entry: when the
 * entry becomes the first queued height, the manual-upgrade runner restarts the node to pass it the new
 * `--halt-height` (watcher/manual/runner.ts). Said before it happens; on a node that signs with a local
 * key it waits for the operator's go-ahead, and without it the entry is queued with `wait_for_restart`.
 * What happens then: docs/manual-upgrades.md#queued-without-a-restart.
 */
import { localKeyOf } from '../guard/index.js';
import type { Layout } from '../home/layout/index.js';
import { statusOfHome } from '../observe/status/index.js';
import type { ManualPlan } from '../watcher/manual/index.js';
import { version } from './version.js';

export interface RestartOutlook {
  /** The pid of the `run` active for this home; undefined when none. */
  runPid: number | undefined;
  /** The first queued height before this entry (0: none): the node's halt height while `run` is active. */
  haltHeight: number;
  /** The key file when the node signs with a local key (no remote signer in config.toml); undefined otherwise. */
  localKey: string | undefined;
}

export async function restartOutlook(options: { layout: Layout; backupDir: string; queued: readonly ManualPlan[]; replaced: string }): Promise<RestartOutlook> {
  const { layout, backupDir } = options;
  const doc = await statusOfHome({ layout, backupDir, version });
  const localKey = await localKeyOf(layout.home);
  const kept = options.queued.filter((plan) => plan.name.toLowerCase() !== options.replaced.toLowerCase());
  return { runPid: doc.chainvisor.running ? (doc.chainvisor.pid ?? undefined) : undefined, haltHeight: kept[0]?.height ?? 0, localKey };
}

/** Whether the runner would restart the node for an entry at `height`. */
export function restartsFor(outlook: RestartOutlook, height: number): boolean {
  return outlook.runPid !== undefined && (outlook.haltHeight === 0 || height < outlook.haltHeight);
}

/** What the operator is told about the node, once the entry is queued (and before `run` acts on it). */
export function restartLines(outlook: RestartOutlook, entry: { name: string; source: string; height: number; held: boolean }): string[] {
  const { name, source, height } = entry;
  const halt = `--halt-height=${height}`;
  if (outlook.runPid === undefined) return [`chainvisor run is not active for this home: the node gets ${halt} when 'chainvisor run' starts it`];
  if (!restartsFor(outlook, height)) {
    return [`the node keeps running: its halt height stays ${outlook.haltHeight}, the first queued upgrade (it takes ${height} after that one)`];
  }
  if (!entry.held) {
    return [
      `chainvisor run (pid ${outlook.runPid}) now RESTARTS the node to pass it ${halt}: it stops the node (SIGTERM, then DAEMON_SHUTDOWN_GRACE)`,
      'and starts it again within a few seconds; the node misses the blocks in between',
    ];
  }
  const now = outlook.haltHeight === 0 ? 'without --halt-height' : `with --halt-height=${outlook.haltHeight}`;
  return [
    `the node was NOT restarted: it signs with a local key (${outlook.localKey ?? 'config/priv_validator_key.json'}), and a restart needs --yes or --restart-now.`,
    `Until its next start it keeps running ${now}; chainvisor run (pid ${outlook.runPid}) stops it when it reports height ${height}`,
    `(read every DAEMON_POLL_INTERVAL) and switches binaries then. Without ${halt} nothing holds the old binary at ${height}: if it`,
    `commits ${height + 1} before the stop lands, the upgrade is reported missed and not applied. For the exact height, restart the node`,
    `before ${height}: chainvisor add-upgrade ${name} ${source} --upgrade-height ${height} --force --restart-now, or restart chainvisor's service.`,
  ];
}
