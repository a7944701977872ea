/** Pagination with the SDK's rules (CollectionFilteredPaginate): defaults, key vs offset, next key, total. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { type PageRequest, paginate } from '../../src/gov/paginate.js';
import { StatusError } from '../../src/util/errors.js';

const entries = [1, 2, 3, 4, 5].map((n) => ({ key: Buffer.from([n]), value: n }));
const request = (fields: Partial<PageRequest>): PageRequest => ({ key: new Uint8Array(), offset: 0n, limit: 0n, countTotal: false, reverse: false, ...fields });
const odd = (n: number) => n % 2 === 1;

test('no limit: 100 per page and a counted total', () => {
  assert.deepEqual(paginate(entries, undefined), { results: [1, 2, 3, 4, 5], page: { nextKey: null, total: 5n } });
});

test('by offset: raw entries skipped (past the end: an empty page), next key is the following entry, total = offset + matches after it', () => {
  assert.deepEqual(paginate(entries, request({ offset: 1n, limit: 1n }), odd), { results: [3], page: { nextKey: Buffer.from([4]), total: 0n } });
  // Counting the total, the next key moves on to the next match (the SDK's loop overwrites it until then).
  assert.deepEqual(paginate(entries, request({ limit: 1n, countTotal: true }), odd), { results: [1], page: { nextKey: Buffer.from([3]), total: 3n } });
  assert.deepEqual(paginate(entries, request({ offset: 6n })), { results: [], page: { nextKey: null, total: 0n } });
  assert.deepEqual(paginate(entries, request({ offset: 5n })).results, []);
});

test('by key: from the key on, the next match as next key, no total; reverse goes down from it', () => {
  assert.deepEqual(paginate(entries, request({ key: Buffer.from([2]), limit: 2n })), { results: [2, 3], page: { nextKey: Buffer.from([4]), total: 0n } });
  assert.deepEqual(paginate(entries, request({ key: Buffer.from([2]), limit: 1n }), odd), { results: [3], page: { nextKey: Buffer.from([5]), total: 0n } });
  assert.deepEqual(paginate(entries, request({ key: Buffer.from([4]), limit: 2n, reverse: true })).results, [4, 3]);
});

test('both key and offset is refused', () => {
  assert.throws(
    () => paginate(entries, request({ key: Buffer.from([1]), offset: 1n })),
    (error: unknown) => {
      assert.ok(error instanceof StatusError);
      assert.deepEqual([error.grpcCode, error.message], [13, 'invalid request, either offset or key is expected, got both']);
      return true;
    },
  );
});
