/**
 * Pagination of a store collection, with the SDK's rules (types/query CollectionFilteredPaginate, v0.50):
 * `key` and `offset` exclude each other; no limit means 100 and a counted total; by key, the page starts
 * at the key, the next key is the next match and no total is given; by offset, `offset` raw entries are
 * skipped (more than there are gives an empty page), the next key is the entry after the page (counting
 * the total, the next match) and the total counts the offset plus the matches after it. Keys are relative
 * to the collection's prefix (votes and deposits: the address bytes under the proposal id).
 */
import { GrpcCode, StatusError } from '../util/errors.js';

export interface PageRequest {
  key: Uint8Array;
  offset: bigint;
  limit: bigint;
  countTotal: boolean;
  reverse: boolean;
}

export interface PageResponse {
  nextKey: Buffer | null;
  total: bigint;
}

export interface Entry<T> {
  /** The entry's key in the collection, as the SDK encodes it (next_key is one of these). */
  key: Buffer;
  value: T;
}

export const defaultLimit = 100n;

/** A PageRequest in the JSON of the REST parameters: 64-bit integers as strings, the key in base64. */
export interface PageRequestJson {
  key?: string;
  offset?: string;
  limit?: string;
  count_total?: boolean;
  reverse?: boolean;
}

export function pageRequestFromJson(page: PageRequestJson | undefined): PageRequest | undefined {
  if (page === undefined) return undefined;
  return {
    key: Buffer.from(page.key ?? '', 'base64'),
    offset: BigInt(page.offset ?? '0'),
    limit: BigInt(page.limit ?? '0'),
    countTotal: page.count_total ?? false,
    reverse: page.reverse ?? false,
  };
}

/** The error every paginated gov query returns for both a key and an offset, as codes.Internal. */
export function bothKeyAndOffset(): StatusError {
  return new StatusError(GrpcCode.internal, 'invalid request, either offset or key is expected, got both');
}

/** Pages `entries` (sorted by key, ascending) keeping those `include` accepts. */
export function paginate<T>(
  entries: ReadonlyArray<Entry<T>>,
  request: PageRequest | undefined,
  include: (value: T) => boolean = () => true,
): { results: T[]; page: PageResponse } {
  const key = Buffer.from(request?.key ?? []);
  const offset = request?.offset ?? 0n;
  let limit = request?.limit ?? 0n;
  let countTotal = request?.countTotal ?? false;
  const reverse = request?.reverse ?? false;
  if (offset > 0n && key.length > 0) throw bothKeyAndOffset();
  if (limit === 0n) {
    limit = defaultLimit;
    countTotal = true;
  }
  let ordered = reverse ? [...entries].reverse() : [...entries];
  const results: T[] = [];
  if (key.length > 0) {
    ordered = ordered.filter((e) => (reverse ? Buffer.compare(e.key, key) <= 0 : Buffer.compare(e.key, key) >= 0));
    let nextKey: Buffer | null = null;
    for (const entry of ordered) {
      if (!include(entry.value)) continue;
      if (BigInt(results.length) === limit) {
        nextKey = entry.key;
        break;
      }
      results.push(entry.value);
    }
    return { results, page: { nextKey, total: 0n } };
  }
  // collections' invalid iterator, which the SDK answers with an empty page.
  if (offset > BigInt(ordered.length)) return { results: [], page: { nextKey: null, total: 0n } };
  let count = 0n;
  let nextKey: Buffer | null = null;
  for (const entry of ordered.slice(Number(offset))) {
    if (count < limit) {
      if (include(entry.value)) {
        results.push(entry.value);
        count++;
      }
      continue;
    }
    // Until one more match is counted, each entry in turn becomes the next key (as the SDK's loop does).
    if (count === limit) {
      nextKey = entry.key;
      if (!countTotal) return { results, page: { nextKey, total: 0n } };
    }
    if (include(entry.value)) count++;
  }
  return { results, page: { nextKey, total: countTotal ? count + offset : 0n } };
}
