/**
 * Block times with nanosecond precision (CometBFT headers carry RFC 3339 times with nanoseconds,
 * upgrade-module.md §2.4). Internally a time is nanoseconds since the Unix epoch as a bigint.
 */
const origin = BigInt(Math.round(performance.timeOrigin * 1e6));

/** The current wall-clock time in nanoseconds (microsecond resolution). */
export function nowNanos(): bigint {
  return origin + BigInt(Math.round(performance.now() * 1e6));
}

/** RFC 3339 with nine fractional digits: `2025-01-02T03:04:05.123456789Z`. */
export function formatNanos(nanos: bigint): string {
  const ms = nanos / 1_000_000n;
  const iso = new Date(Number(ms)).toISOString();
  const fraction = (((nanos % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n).toString().padStart(9, '0');
  return `${iso.slice(0, 19)}.${fraction}Z`;
}

/** The inverse of formatNanos (an RFC 3339 UTC time with up to nine fractional digits). */
export function parseNanos(text: string): bigint {
  const match = /^(.{19})(?:\.(\d{1,9}))?Z$/.exec(text);
  if (match === null) throw new Error(`not an RFC 3339 UTC time: ${text}`);
  const seconds = BigInt(Date.parse(`${match[1]}Z`) / 1000);
  return seconds * 1_000_000_000n + BigInt((match[2] ?? '').padEnd(9, '0'));
}

/** The parts of a protobuf Timestamp. */
export function toTimestamp(nanos: bigint): { seconds: bigint; nanos: number } {
  const seconds = nanos >= 0n ? nanos / 1_000_000_000n : -((-nanos + 999_999_999n) / 1_000_000_000n);
  return { seconds, nanos: Number(nanos - seconds * 1_000_000_000n) };
}

/** Go's zero time, used for the deprecated Plan.time field. */
export const zeroTimeText = '0001-01-01T00:00:00Z';
export const zeroTimeSeconds = -62135596800n;
