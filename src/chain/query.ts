/**
 * What every query of the node's query router shares, over gRPC as over abci_query (issue #45): the
 * bound of an answer's bytes, and its decoding within a count of entries before cosmjs-types' codec
 * sees it — 4 MiB of empty protobuf entries decode into half a GiB of objects — refused with the
 * reason it is not the answer asked for.
 */
import { BinaryReader } from 'cosmjs-types/binary.js';

import { shownText } from '../shared/json.js';
import { ChainAnswerRefusedError } from './errors.js';

/** The largest answer of one query, unless its caller asks for less: grpc-js's own default. */
export const maxQueryBytes = 4 * 1024 * 1024;

/**
 * Protobuf fields in one answer, counted through every nesting. A page of 100 validators has about
 * 5 000; 200 000 entries decode into some 50 MB of objects at most.
 */
export const maxQueryEntries = 200_000;

/** Nestings looked into by the count (a Cosmos answer has fewer than 8). */
const maxDepth = 16;

/** Who answered, for the words of a refusal. */
export interface QuerySource {
  readonly address: string;
  describe(): string;
}

/**
 * `bytes` decoded by `codec`, or a ChainAnswerRefusedError naming `what`: more than maxQueryEntries
 * fields, or bytes that are not a `typeName`.
 */
export function decodeAnswer<T>(codec: { decode(bytes: Uint8Array): T }, bytes: Uint8Array, source: QuerySource, what: string, typeName: string): T {
  const refuse = (reason: string) => new ChainAnswerRefusedError(source.address, what, reason, source.describe());
  if (countEntries(bytes, maxQueryEntries, 0) > maxQueryEntries) throw refuse(`it holds more than ${maxQueryEntries} protobuf fields`);
  try {
    return codec.decode(bytes);
  } catch (error) {
    throw refuse(`it is not a ${typeName}: ${shownText((error as Error).message)}`);
  }
}

/**
 * The fields of `bytes` and of every length-delimited field that reads as a message (a string may
 * too: it is counted then, which only errs on the safe side), up to `max` + 1.
 */
function countEntries(bytes: Uint8Array, max: number, depth: number): number {
  const reader = new BinaryReader(bytes);
  let count = 0;
  try {
    while (reader.pos < reader.len && count <= max) {
      const tag = reader.uint32();
      const wire = tag & 7;
      if (tag >>> 3 === 0 || wire === 3 || wire === 4 || wire > 5) break;
      count += 1;
      if (wire !== 2) reader.skipType(wire);
      else {
        const nested = reader.bytes();
        if (depth < maxDepth && nested.length > 1) count += countEntries(nested, max - count, depth + 1);
      }
    }
  } catch {
    // Not a message past this point (a string, or a truncated field): what was counted stands.
  }
  return count;
}
