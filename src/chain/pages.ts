/**
 * A paginated list of the node's query router (the SDK's PageRequest / next_key), read page by page
 * within bounds (issue #45): a node that answers a next_key for ever, the same key again, a key of
 * megabytes or a page larger than asked stops the read with a ChainAnswerRefusedError, never a hang
 * or memory without end.
 */
import { PageRequest, type PageResponse } from 'cosmjs-types/cosmos/base/query/v1beta1/pagination.js';

import { ChainAnswerRefusedError } from './errors.js';
import type { QuerySource } from './query.js';

export interface PageBounds {
  /** What is listed, plural, for messages: "proposals in their voting period". */
  what: string;
  /** Entries asked per page. */
  perPage: number;
  /** Pages read at most: the list is refused when it goes on past them. */
  maxPages: number;
}

/** No store key of a Cosmos list is near this long (a prefix and an address are under 100 bytes). */
const maxKeyBytes = 1024;

/**
 * The pages of a list, in order: `ask` reads one with the PageRequest given; the read stops at the
 * first page without a next_key, or at a break of the caller (a lookup found what it looked for).
 */
export async function* pages<T>(
  source: QuerySource,
  bounds: PageBounds,
  ask: (page: PageRequest) => Promise<{ items: T[]; pagination?: PageResponse }>,
): AsyncGenerator<T[]> {
  const { what, perPage, maxPages } = bounds;
  const refuse = (reason: string) => new ChainAnswerRefusedError(source.address, `the ${what}`, reason, source.describe());
  const seen = new Set<string>();
  let key: Uint8Array = new Uint8Array();
  for (let page = 1; ; page++) {
    const { items, pagination } = await ask(PageRequest.fromPartial({ key, limit: BigInt(perPage) }));
    if (items.length > perPage) throw refuse(`a page holds ${items.length} entries where ${perPage} were asked`);
    yield items;
    const next = pagination?.nextKey ?? new Uint8Array();
    if (next.length === 0) return;
    if (next.length > maxKeyBytes) throw refuse(`the next page's key is ${next.length} bytes long (at most ${maxKeyBytes})`);
    const hex = Buffer.from(next).toString('hex');
    if (seen.has(hex)) throw refuse(`the next page's key ${hex.slice(0, 64)} was given before: the list would never end`);
    if (page >= maxPages) throw refuse(`the list goes on past ${maxPages} pages of ${perPage} (${maxPages * perPage} entries)`);
    seen.add(hex);
    key = next;
  }
}
