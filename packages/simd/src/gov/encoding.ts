/**
 * Small conversions the gov renderings share: the SDK's LegacyDec text (18 decimals), durations and
 * times from the store's JSON to protobuf, and the JSON of timestamps and durations as gogoproto's
 * jsonpb writes them (fractions of 0, 3, 6 or 9 digits).
 */
import { parseDuration } from '../util/duration.js';

/** `0.334` → `0.334000000000000000`, as LegacyDec.String() prints it. */
export function legacyDec(text: string): string {
  const match = /^(-?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (match === null) return text;
  const fraction = (match[3] ?? '').slice(0, 18).padEnd(18, '0');
  return `${match[1]}${(match[2] ?? '').replace(/^0+(?=\d)/, '') || '0'}.${fraction}`;
}

/** The integer behind a LegacyDec (value × 10¹⁸), how gogoproto puts a Dec customtype on the wire. */
export function legacyDecAtomics(text: string): string {
  const [whole, fraction] = legacyDec(text).split('.') as [string, string];
  return BigInt(`${whole}${fraction}`).toString();
}

const legacyPrecision = 18;
/** math's maxDecBitLen: 256 bits of integer and 60 of precision. */
const maxDecBitLen = 316;

/**
 * math.LegacyNewDecFromStr: the value × 10¹⁸, or its error text (`invalid decimal length`,
 * `value '…' exceeds max precision by -1 decimal places: max precision 18`, …).
 */
export function parseLegacyDec(text: string): bigint {
  const negative = text.startsWith('-');
  const str = negative ? text.slice(1) : text;
  if (str === '') throw new Error('decimal string cannot be empty');
  const parts = str.split('.');
  if (parts.length > 2) throw new Error('invalid decimal string');
  const [whole, fraction = ''] = parts as [string, string?];
  if (parts.length === 2 && (fraction === '' || whole === '')) throw new Error('invalid decimal length');
  if (fraction.length > legacyPrecision) {
    throw new Error(`value '${str}' exceeds max precision by ${legacyPrecision - fraction.length} decimal places: max precision ${legacyPrecision}`);
  }
  // Go's big.Int SetString, base 10: an optional sign, then digits.
  const combined = `${whole}${fraction}${'0'.repeat(legacyPrecision - fraction.length)}`;
  if (!/^[+-]?\d+$/.test(combined)) throw new Error(`failed to set decimal string with base 10: ${combined}`);
  const value = BigInt(combined);
  const bits = (value < 0n ? -value : value).toString(2).length;
  if (value !== 0n && bits > maxDecBitLen) throw new Error(`decimal '${str}' out of range; bitLen: got ${bits}, max ${maxDecBitLen}`);
  return negative ? -value : value;
}

/** LegacyDec.String() of a value × 10¹⁸: `600000000000000000n` → `0.600000000000000000`. */
export function legacyDecText(atomics: bigint): string {
  const digits = (atomics < 0n ? -atomics : atomics).toString().padStart(legacyPrecision + 1, '0');
  return `${atomics < 0n ? '-' : ''}${digits.slice(0, -legacyPrecision)}.${digits.slice(-legacyPrecision)}`;
}

export function durationProto(goDuration: string): { seconds: bigint; nanos: number } {
  const nanos = BigInt(Math.round(parseDuration(goDuration) * 1e6));
  return { seconds: nanos / 1_000_000_000n, nanos: Number(nanos % 1_000_000_000n) };
}

function trimmedFraction(nanos: number): string {
  let text = `.${String(nanos).padStart(9, '0')}`;
  for (let i = 0; i < 2 && text.endsWith('000'); i++) text = text.slice(0, -3);
  return text === '.000' ? '' : text;
}

/** A duration as jsonpb writes it: `10s`, `0.500s`. */
export function durationJson(goDuration: string): string {
  const { seconds, nanos } = durationProto(goDuration);
  return `${seconds}${trimmedFraction(nanos)}s`;
}

/** An ISO time of the store as a protobuf Timestamp. */
export function timestampProto(iso: string): { seconds: bigint; nanos: number } {
  const ms = Date.parse(iso);
  const seconds = Math.floor(ms / 1000);
  return { seconds: BigInt(seconds), nanos: (ms - seconds * 1000) * 1_000_000 };
}

/** An ISO time of the store as jsonpb writes a Timestamp: `2025-01-02T03:04:05.120Z`, `…05Z`. */
export function timestampJson(iso: string): string {
  const { nanos } = timestampProto(iso);
  return `${new Date(Date.parse(iso)).toISOString().slice(0, 19)}${trimmedFraction(nanos)}Z`;
}

/** Go's zero time, what the legacy (v1beta1) proposal shows for a time it does not have. */
export const zeroTime = { proto: { seconds: -62135596800n, nanos: 0 }, json: '0001-01-01T00:00:00Z' } as const;
