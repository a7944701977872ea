/**
 * The wait a server asks for before the next attempt: a `Retry-After` header (seconds, or an HTTP
 * date) or the seconds a chat service puts in its JSON answer (Discord's `retry_after`, Telegram's
 * `parameters.retry_after`, fractions included). The caller clamps it: a number too large for a float
 * is Infinity, so a hostile or confused server gets the caller's longest wait, never an hour's park.
 */

/** In ms from `now`; undefined when absent, negative or unreadable (then the caller's backoff applies). */
export function parseRetryAfter(value: unknown, now: number = Date.now()): number | undefined {
  const first: unknown = Array.isArray(value) ? value[0] : value;
  if (typeof first === 'number') return first >= 0 ? Math.ceil(first * 1000) : undefined;
  if (typeof first !== 'string') return undefined;
  const text = first.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  // An HTTP date names its day and month; anything else without a letter ("-5") is no date.
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
