/**
 * Parsers for one setting value. Each returns the value or a message that says what is expected;
 * the loader turns messages into problems naming the variable and the value.
 */
import path from 'node:path';

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const bad = (message: string): Parsed<never> => ({ ok: false, message });

/**
 * The largest number of bytes, milliseconds or units a setting can hold: past 2^53 - 1 a number no
 * longer means itself (`99999999999999999999TiB` became 1.1e32 bytes). Every numeric setting refuses
 * more, saying this limit, whatever its unit; a setting may also have a lower maximum of its own
 * (`max` in ./schema.ts).
 */
export const maxExact = Number.MAX_SAFE_INTEGER;

function exact(value: number, unit: string): Parsed<number> {
  if (value > maxExact) return bad(`must be at most ${maxExact}${unit}: a larger number cannot be held exactly`);
  return ok(value);
}

/** `true`/`false` in any case, as cosmovisor accepts them. */
export function parseBool(text: string): Parsed<boolean> {
  const lower = text.trim().toLowerCase();
  if (lower === 'true') return ok(true);
  if (lower === 'false') return ok(false);
  return bad('expected true or false');
}

const durationUnits: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** A Go duration (`300ms`, `1m30s`, `1.5h`), in milliseconds. A bare number other than 0 is refused. */
export function parseDuration(text: string): Parsed<number> {
  const s = text.trim();
  if (s === '0') return ok(0);
  if (/^\d+(\.\d+)?$/.test(s)) return bad(`a duration needs a unit, for example "${s}ms" or "${s}s"`);
  if (s.startsWith('-')) return bad('a duration cannot be negative');
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (let m = part.exec(s); m !== null; m = part.exec(s)) {
    total += Number(m[1]) * (durationUnits[m[2] as string] ?? Number.NaN);
    consumed = part.lastIndex;
  }
  if (consumed === 0 || consumed !== s.length) {
    return bad('expected a duration such as 300ms, 5s or 1m30s (units: ns, us, ms, s, m, h)');
  }
  // Infinity (hundreds of digits) is past the limit too.
  return exact(total, 'ms');
}

const byteUnits: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

/** A size such as `4GiB`, `500MB` or a plain number of bytes. */
export function parseBytes(text: string): Parsed<number> {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const factor = m ? byteUnits[(m[2] || 'b').toLowerCase()] : undefined;
  if (!m || factor === undefined) return bad('expected a size such as 512MiB, 4GiB or a number of bytes');
  const value = Math.floor(Number(m[1]) * factor);
  if (value <= 0) return bad('expected a size greater than zero');
  return exact(value, ' bytes');
}

/** A whole number >= 0. */
export function parseCount(text: string): Parsed<number> {
  const s = text.trim();
  if (!/^\d+$/.test(s)) return bad('expected a whole number, 0 or more');
  return exact(Number(s), '');
}

export function parseAbsPath(text: string): Parsed<string> {
  if (!path.isAbsolute(text)) return bad('expected an absolute path (starting with /)');
  return ok(path.normalize(text).replace(/(.)\/+$/, '$1'));
}

/** The longest file name Linux filesystems (ext4, XFS, btrfs, tmpfs) and macOS accept, in bytes. */
export const maxFileNameBytes = 255;

/**
 * A bare file name, as `run` will use it: no folder separators, not `.` or `..`, no control character,
 * at most 255 bytes in UTF-8. Empty only where the setting may be unset (`optional`).
 */
export function parseFileName(text: string, options: { optional?: boolean } = {}): Parsed<string> {
  if (text === '') return options.optional ? ok('') : bad('expected a file name, not an empty one');
  if (text.includes('/') || text.includes('\\')) return bad('expected a file name without folders');
  if (text === '.' || text === '..') return bad('expected a file name');
  if (/[\u0000-\u001f\u007f]/.test(text)) return bad('the name contains a control character');
  const bytes = Buffer.byteLength(text);
  if (bytes > maxFileNameBytes) return bad(`the name is ${bytes} bytes long (UTF-8); a file name may have at most ${maxFileNameBytes}`);
  return ok(text);
}

export function parseEnum(text: string, values: readonly string[]): Parsed<string> {
  const lower = text.trim().toLowerCase();
  if (values.includes(lower)) return ok(lower);
  return bad(`expected one of: ${values.join(', ')}`);
}

/**
 * `off`, `any`, or host names separated by commas (`github.com,objects.githubusercontent.com`), as
 * lower-case names without spaces; each a DNS name or an IP address, never a URL or a wildcard.
 */
export function parseHostList(text: string): Parsed<string> {
  const lower = text.trim().toLowerCase();
  if (lower === 'off' || lower === 'any') return ok(lower);
  const hosts = lower
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
  if (hosts.length === 0) return bad('expected off, any, or host names separated by commas (for example github.com)');
  for (const host of hosts) {
    if (host.length > 253 || !/^(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*)$/.test(host))
      return bad(`${JSON.stringify(host.slice(0, 80))} is not a host name: give names such as github.com, without a scheme, port, path or wildcard`);
  }
  return ok(hosts.join(','));
}
