/**
 * The chainvisor_* counters and histograms, and the after-upgrade and twin-check gauges, as the event
 * bus tells them: each a listener of the events, never a second call beside an emit.
 */
import type { EventBus } from '../shared/events/index.js';
import type { Series } from './metric-series.js';

export interface EventMetrics {
  /** When the last key-in-use was heard (ms), for `alertRead`. */
  keyInUseAt(): number | undefined;
  off(): void;
}

/** Follows the bus into `series` until `off()`. */
export function followEvents(bus: EventBus, series: Series): EventMetrics {
  const { restarts, upgrades, upgradeDuration, downloaded, backupDuration, prevoteRatio, confirmed, confirmSeconds, signed, keyInUse } = series;
  // The upgrade the after-upgrade series describe, and whether the network still waits for its first block.
  let applied: { name: string; height: number } | undefined;
  let waiting = false;
  let keyInUseAt: number | undefined;
  let detectedAt: number | undefined;
  let started = false;
  const off = bus.on((event) => {
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
  return { keyInUseAt: () => keyInUseAt, off };
}
