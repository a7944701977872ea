/**
 * When a height will be reached (issue #35): the block time measured over a window of recent blocks
 * (the mean over the last `windowBlocks`, 500), and the upgrade's estimated time from it. One estimate
 * for everything that says "when": the status, the metrics and the chat messages.
 * Why, and the rest of its rules: docs/design/status-and-metrics.md#sharedetats.
 */

export interface BlockTime {
  /** Mean seconds per block over the window. */
  seconds: number;
  /** The window's length in blocks (fewer than the target until enough have been seen). */
  basedOnBlocks: number;
  /** The newest sample: the estimate counts from it. */
  height: number;
  /** When that height was read, ms since the epoch. */
  at: number;
}

export interface Eta {
  /** ISO 8601, the estimated time of the height. */
  at: string;
  /** Seconds from now (0 once the height is reached or overdue). */
  seconds: number;
  blockTimeSeconds: number;
  basedOnBlocks: number;
}

/** The window's target length, in blocks. */
export const windowBlocks = 500;

export interface BlockClock {
  /** A height read at `at` (ms since the epoch). */
  observe(height: number, at: number): void;
  /** Forget the samples: the next ones start a new window. */
  reset(): void;
  /** Null until two different heights have been read. */
  blockTime(): BlockTime | null;
}

export function createBlockClock(window = windowBlocks): BlockClock {
  let samples: { height: number; at: number }[] = [];
  return {
    observe(height, at) {
      const last = samples.at(-1);
      // A height that goes back (a node restored, another node behind a load balancer) starts again.
      if (last !== undefined && height < last.height) samples = [];
      if (last !== undefined && height === last.height) return; // the first read of a height is the closest to its commit
      samples.push({ height, at });
      // Keep the newest sample at least `window` blocks back, and everything after it.
      let oldest = 0;
      for (let i = 0; i < samples.length; i++) if (height - (samples[i] as { height: number }).height >= window) oldest = i;
      if (oldest > 0) samples = samples.slice(oldest);
      // Fast polling of a slow chain: at most a few thousand samples, thinned from the middle.
      if (samples.length > 4096) samples = samples.filter((_, i) => i % 2 === 0 || i === samples.length - 1);
    },
    reset() {
      samples = [];
    },
    blockTime() {
      const first = samples[0];
      const last = samples.at(-1);
      if (first === undefined || last === undefined || last.height <= first.height) return null;
      const blocks = last.height - first.height;
      return { seconds: (last.at - first.at) / 1000 / blocks, basedOnBlocks: blocks, height: last.height, at: last.at };
    },
  };
}

/** Date's range: ±100,000,000 days from 1970. */
const maxDateMs = 8.64e15;

/** The estimated time of `height`; null without a block time, or when it is no date (etaProblem says why). */
export function etaOf(height: number, blockTime: BlockTime | null, now = Date.now()): Eta | null {
  if (blockTime === null) return null;
  const at = estimatedAt(height, blockTime);
  if (at === null) return null;
  return {
    at: new Date(at).toISOString(),
    seconds: Math.max(0, Math.round((at - now) / 1000)),
    blockTimeSeconds: Math.round(blockTime.seconds * 1000) / 1000,
    basedOnBlocks: blockTime.basedOnBlocks,
  };
}

/** Why a height with a block time has no estimate (a plan at 10^15 on a fast chain is past Date's range); null when it has one. */
export function etaProblem(height: number, blockTime: BlockTime | null): string | null {
  if (blockTime === null || estimatedAt(height, blockTime) !== null) return null;
  return `height ${height} is too far ahead to be a date at ${blockTimeText(blockTime.seconds)} a block`;
}

function estimatedAt(height: number, blockTime: BlockTime): number | null {
  const at = Math.round(blockTime.at + Math.max(0, height - blockTime.height) * blockTime.seconds * 1000);
  return Number.isFinite(at) && Math.abs(at) <= maxDateMs ? at : null;
}

/** `in about 3 h 12 min (around 04:31 UTC; block time 6.1 s over the last 500 blocks)`. */
export function describeEta(eta: Eta): string {
  const when = eta.seconds <= 0 ? 'due now' : `in about ${aboutDuration(eta.seconds)}`;
  const clock = eta.at.slice(11, 16);
  const day = eta.seconds >= 20 * 3600 ? `${eta.at.slice(0, 10)} ` : '';
  const blocks = eta.basedOnBlocks === 1 ? 'the last block' : `the last ${eta.basedOnBlocks} blocks`;
  return `${when} (around ${day}${clock} UTC; block time ${blockTimeText(eta.blockTimeSeconds)} over ${blocks})`;
}

function blockTimeText(seconds: number): string {
  return seconds < 1 ? `${Math.round(seconds * 1000)} ms` : `${seconds.toFixed(1)} s`;
}

/** 45 → `45 s`, 700 → `12 min`, 11520 → `3 h 12 min`, 200000 → `2 d 7 h`. */
export function aboutDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return min % 60 === 0 ? `${h} h` : `${h} h ${min % 60} min`;
  const d = Math.floor(h / 24);
  return h % 24 === 0 ? `${d} d` : `${d} d ${h % 24} h`;
}
