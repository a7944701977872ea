/** Sizes as people read them, in messages, logs and progress lines: one formatter for all. */

const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/**
 * "512 B", "1.5 MiB", "12 GiB". With `steady`, one decimal at every size ("12.0 GiB"), so a progress
 * line that redraws does not change width as the number grows.
 */
export function formatBytes(n: number, options: { steady?: boolean } = {}): string {
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${n} B`;
  return `${value.toFixed(options.steady || value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** "1.5 GiB (1610612736 bytes)": both, for a message the operator compares with df. */
export function formatBytesExact(n: number): string {
  return n < 1024 ? `${n} B` : `${formatBytes(n)} (${n} bytes)`;
}

/** 600000 → `10m`, 90000 → `1m30s`. */
export function formatElapsed(ms: number): string {
  const s = Math.round(ms / 1000);
  const m = Math.floor(s / 60);
  return m === 0 ? `${s}s` : s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
}
