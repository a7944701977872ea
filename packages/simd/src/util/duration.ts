/**
 * Go-style durations (`100ms`, `2s`, `1m30s`), the syntax real nodes and cosmovisor use for their
 * flags, so operators can paste the same values.
 */
import { SimError } from './errors.js';

const unitMs: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Parses a Go duration into milliseconds; a bare number other than 0 is refused (it has no unit). */
export function parseDuration(text: string, what = 'duration'): number {
  const trimmed = text.trim();
  if (trimmed === '0') return 0;
  const part = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let end = 0;
  for (let match = part.exec(trimmed); match !== null; match = part.exec(trimmed)) {
    total += Number(match[1]) * (unitMs[match[2] as string] as number);
    end = part.lastIndex;
  }
  if (trimmed === '' || end !== trimmed.length) {
    throw new SimError('SIM_BAD_DURATION', `invalid ${what} ${JSON.stringify(text)}: expected a Go duration such as 500ms, 2s or 1m30s`);
  }
  return total;
}

/** Renders milliseconds the way Go prints a duration (`1.5s`, `100ms`, `1m30s`). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1000;
  return `${hours > 0 ? `${hours}h` : ''}${hours > 0 || minutes > 0 ? `${minutes}m` : ''}${seconds}s`;
}
