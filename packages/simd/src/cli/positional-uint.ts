/**
 * A uint64 positional argument the way the SDK v0.50 AutoCLI takes it (`query gov proposal <id>`):
 * each positional argument is a pflag flag named by its index, set with pflag's uint64 parser
 * (Go's strconv.ParseUint with base 0, so 0x, 0o, 0b and a leading 0 pick the base, and `_` may
 * separate digits), and a bad value fails the command before anything is queried with pflag's
 * `invalid argument "abc" for "--0" flag: strconv.ParseUint: parsing "abc": invalid syntax`.
 */
import { SimError } from '../util/errors.js';

const maxUint64 = (1n << 64n) - 1n;

/** Go's underscoreOK: underscores only between digits, or between a base prefix and a digit. */
function underscoresOk(s: string): boolean {
  let saw = '^';
  let i = 0;
  if (s.length >= 2 && s[0] === '0' && /[bBoOxX]/.test(s[1] as string)) {
    i = 2;
    saw = '0';
  }
  for (; i < s.length; i++) {
    const c = s[i] as string;
    if (/[0-9a-zA-Z]/.test(c)) {
      saw = '0';
    } else if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
    } else {
      return false;
    }
  }
  return saw !== '_';
}

/** Go's strconv.ParseUint(text, 0, 64); throws the NumError text (`invalid syntax` / `value out of range`). */
export function parseGoUint64(text: string): bigint {
  const fail = (why: string) => new Error(`strconv.ParseUint: parsing ${JSON.stringify(text)}: ${why}`);
  if (text === '') throw fail('invalid syntax');
  let base = 10;
  let digits = text;
  if (text[0] === '0') {
    const prefix = text[1]?.toLowerCase();
    if (prefix === 'x' || prefix === 'o' || prefix === 'b') {
      base = prefix === 'x' ? 16 : prefix === 'o' ? 8 : 2;
      digits = text.slice(2);
    } else if (text.length > 1) {
      base = 8;
      digits = text.slice(1);
    }
  }
  let value = 0n;
  let underscores = false;
  for (const c of digits) {
    if (c === '_') {
      underscores = true;
      continue;
    }
    const d = parseInt(c, 36);
    if (Number.isNaN(d) || d >= base) throw fail('invalid syntax');
    value = value * BigInt(base) + BigInt(d);
    if (value > maxUint64) throw fail('value out of range');
  }
  if (digits.replaceAll('_', '') === '' && base !== 8) throw fail('invalid syntax');
  if (underscores && !underscoresOk(text)) throw fail('invalid syntax');
  return value;
}

/** The positional argument at `index` as a uint64, or the CLI's error for it. */
export function positionalUint64(positionals: readonly string[], index: number): bigint {
  const text = positionals[index] as string;
  try {
    return parseGoUint64(text);
  } catch (error) {
    throw new SimError('SIM_BAD_ARGUMENT', `invalid argument ${JSON.stringify(text)} for "--${index}" flag: ${(error as Error).message}`);
  }
}
