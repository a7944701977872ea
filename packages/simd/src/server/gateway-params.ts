/**
 * Request parameters as grpc-gateway (v1, what SDK v0.47/0.50 serve REST with) parses them: path
 * parameters with Go's strconv (base prefixes allowed), a mismatch answered `type mismatch, parameter:
 * <name>, error: strconv.ParseUint: parsing "<v>": invalid syntax` (InvalidArgument, HTTP 400); query
 * parameters named by their field path (`pagination.limit`), unknown ones ignored.
 */
import type { PageRequest } from 'cosmjs-types/cosmos/base/query/v1beta1/pagination.js';

import { GrpcCode, StatusError } from '../util/errors.js';

/** Go's strconv.ParseInt/ParseUint with base 0; returns the decimal text, throws Go's error text. */
function parseGoInt(text: string, signed: boolean): string {
  const fn = signed ? 'strconv.ParseInt' : 'strconv.ParseUint';
  const quoted = JSON.stringify(text);
  const match = /^([+-]?)(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|0[0-7_]*|[1-9][0-9_]*)$/.exec(text);
  if (match === null || /__|_$/.test(text) || (match[1] === '-' && !signed) || (match[1] === '+' && !signed)) {
    throw new Error(`${fn}: parsing ${quoted}: invalid syntax`);
  }
  const digits = (match[2] as string).replace(/_/g, '');
  const value = /^0[0-7]+$/.test(digits) ? BigInt(`0o${digits.slice(1)}`) : BigInt(digits.replace(/^0[oO]/, '0o'));
  const signedValue = match[1] === '-' ? -value : value;
  const [min, max] = signed ? [-(2n ** 63n), 2n ** 63n - 1n] : [0n, 2n ** 64n - 1n];
  if (signedValue < min || signedValue > max) throw new Error(`${fn}: parsing ${quoted}: value out of range`);
  return signedValue.toString();
}

function mismatch(name: string, error: unknown): StatusError {
  return new StatusError(GrpcCode.invalidArgument, `type mismatch, parameter: ${name}, error: ${(error as Error).message}`);
}

export function pathUint64(text: string, name: string): string {
  try {
    return parseGoInt(decodeURIComponent(text), false);
  } catch (error) {
    throw mismatch(name, error);
  }
}

export function pathInt64(text: string, name: string): bigint {
  try {
    return BigInt(parseGoInt(decodeURIComponent(text), true));
  } catch (error) {
    throw mismatch(name, error);
  }
}

const parseBool = (text: string) => {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  throw new Error(`strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`);
};

/** The `pagination.*` query parameters as the JSON of a PageRequest; a bad value is InvalidArgument. */
export function paginationParams(url: URL): Record<string, unknown> | undefined {
  const get = (name: string) => url.searchParams.getAll(`pagination.${name}`).at(-1);
  const page: Record<string, unknown> = {};
  try {
    const key = get('key');
    if (key !== undefined) page.key = Buffer.from(key.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('base64');
    for (const name of ['offset', 'limit'] as const) {
      const value = get(name);
      if (value !== undefined) page[name] = parseGoInt(value, false);
    }
    const countTotal = get('count_total');
    if (countTotal !== undefined) page.count_total = parseBool(countTotal);
    const reverse = get('reverse');
    if (reverse !== undefined) page.reverse = parseBool(reverse);
  } catch (error) {
    throw new StatusError(GrpcCode.invalidArgument, (error as Error).message);
  }
  return Object.keys(page).length === 0 ? undefined : page;
}

/** An enum query parameter: its name or number; anything else is `<v> is not a valid <Go type>`. */
export function enumParam(url: URL, name: string, values: Readonly<Record<string, number>>, goType: string): string | undefined {
  const value = url.searchParams.getAll(name).at(-1);
  if (value === undefined) return undefined;
  if (Object.hasOwn(values, value)) return value;
  if (/^[+-]?\d+$/.test(value) && Object.values(values).includes(Number(value))) return String(Number(value));
  throw new StatusError(GrpcCode.invalidArgument, `${value} is not a valid ${goType}`);
}

/** The last value of a query parameter, parsed as grpc-gateway v1 does; a bad one is InvalidArgument with Go's error text. */
function queryParam<T>(url: URL, name: string, parse: (text: string) => T): T | undefined {
  const value = url.searchParams.getAll(name).at(-1);
  if (value === undefined) return undefined;
  try {
    return parse(value);
  } catch (error) {
    throw new StatusError(GrpcCode.invalidArgument, (error as Error).message);
  }
}

export const queryInt64 = (url: URL, name: string) => queryParam(url, name, (text) => BigInt(parseGoInt(text, true)));
export const queryBool = (url: URL, name: string) => queryParam(url, name, parseBool);
/** A bytes query parameter: standard base64, else URL-safe base64 (runtime.Bytes). */
export const queryBytes = (url: URL, name: string) => queryParam(url, name, (text) => Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64'));

/** The `pagination.*` query parameters as a PageRequest message (undefined when none is given). */
export function pageRequestParam(url: URL): PageRequest | undefined {
  const page = paginationParams(url);
  if (page === undefined) return undefined;
  return {
    key: page.key === undefined ? new Uint8Array() : Buffer.from(page.key as string, 'base64'),
    offset: BigInt((page.offset as string | undefined) ?? 0),
    limit: BigInt((page.limit as string | undefined) ?? 0),
    countTotal: page.count_total === true,
    reverse: page.reverse === true,
  };
}
