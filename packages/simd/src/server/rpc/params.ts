/**
 * Method parameters, from a URI query (`/block?height=5`, `?path="/x"`, `?hash=0xAB…`) or from a
 * JSON-RPC request (named object or positional array), converted as CometBFT converts them: integers
 * as decimal strings (in JSON never as numbers, which cmtjson refuses), `[]byte` as base64 in JSON, `HexBytes` as hex in JSON, `0x…` or
 * `"…"` in URIs. Also the height, page and per_page rules shared by several methods (rpc/core/env.go).
 */
import { ParamError } from './jsonrpc.js';

export type Encoding = 'uri' | 'json';

export class Params {
  private constructor(
    private readonly values: Record<string, unknown>,
    readonly encoding: Encoding,
  ) {}

  static fromUri(search: URLSearchParams): Params {
    return new Params(Object.fromEntries(search), 'uri');
  }

  /** `params` of a JSON-RPC request: an object, or an array matched to the method's argument names. */
  static fromJson(params: unknown, names: readonly string[]): Params {
    if (Array.isArray(params)) return new Params(Object.fromEntries(params.map((value, i) => [names[i] ?? `#${i}`, value])), 'json');
    if (params !== null && typeof params === 'object') return new Params(params as Record<string, unknown>, 'json');
    return new Params({}, 'json');
  }

  private raw(name: string): unknown {
    const value = this.values[name];
    return value === null || (this.encoding === 'uri' && value === '') ? undefined : value;
  }

  int(name: string): number | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    // cmtjson takes Go's int, int64, uint and uint64 only as JSON strings (libs/json/decoder.go).
    if (this.encoding === 'json' && typeof value !== 'string') {
      throw new ParamError(`invalid 64-bit integer encoding ${JSON.stringify(JSON.stringify(value))}, expected string`);
    }
    const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.replace(/^"(.*)"$/, '$1') : '';
    if (!/^-?\d+$/.test(text)) throw new ParamError(`${name}: expected an integer, got ${JSON.stringify(value)}`);
    return Number(text);
  }

  string(name: string): string | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    if (typeof value !== 'string') throw new ParamError(`${name}: expected a string, got ${JSON.stringify(value)}`);
    if (this.encoding === 'uri' && value.length >= 2 && value.startsWith('"') && value.endsWith('"')) return JSON.parse(value) as string;
    return value;
  }

  bool(name: string): boolean {
    const value = this.raw(name);
    return value === true || value === 'true';
  }

  /** `[]byte` (`json` = base64) or `HexBytes` (`json` = hex). */
  bytes(name: string, json: 'base64' | 'hex'): Buffer | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    if (typeof value !== 'string') throw new ParamError(`${name}: expected a string, got ${JSON.stringify(value)}`);
    if (/^0x/i.test(value)) {
      if (!/^0x([0-9a-f]{2})*$/i.test(value)) throw new ParamError(`${name}: invalid hex ${JSON.stringify(value)}`);
      return Buffer.from(value.slice(2), 'hex');
    }
    if (this.encoding === 'uri' && value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
      return Buffer.from(JSON.parse(value) as string, 'utf8');
    }
    if (json === 'hex' && !/^([0-9a-f]{2})*$/i.test(value)) throw new ParamError(`${name}: invalid hex ${JSON.stringify(value)}`);
    return Buffer.from(value, json);
  }
}

const defaultPerPage = 30;
const maxPerPage = 100;

/** CometBFT's getHeight: absent = latest; must be positive and not above `latest`. */
export function heightParam(params: Params, latest: number, base = 1): number {
  const height = params.int('height');
  if (height === undefined) return latest;
  if (height <= 0) throw new Error(`height must be greater than 0, but got ${height}`);
  if (height > latest) throw new Error(`height ${height} must be less than or equal to the current blockchain height ${latest}`);
  if (height < base) throw new Error(`height ${height} is not available, lowest height is ${base}`);
  return height;
}

/** The slice of `total` items a page/per_page pair selects, or CometBFT's error for a page out of range. */
export function pageOf(params: Params, total: number, perPageName = 'per_page'): { skip: number; size: number } {
  const asked = params.int(perPageName);
  const perPage = asked === undefined || asked < 1 ? defaultPerPage : Math.min(asked, maxPerPage);
  const page = params.int('page');
  if (page !== undefined) {
    const pages = Math.max(1, Math.floor((total - 1) / perPage) + 1);
    if (page <= 0 || page > pages) throw new Error(`page should be within [1, ${pages}] range, given ${page}`);
  }
  const skip = ((page ?? 1) - 1) * perPage;
  return { skip, size: Math.max(0, Math.min(perPage, total - skip)) };
}

/** `order_by` of the search methods. */
export function orderParam(params: Params, fallback: 'asc' | 'desc'): 'asc' | 'desc' {
  const order = params.string('order_by') ?? '';
  if (order === '') return fallback;
  if (order !== 'asc' && order !== 'desc') throw new Error('expected order_by to be either `asc` or `desc` or empty');
  return order;
}
