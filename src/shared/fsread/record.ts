/**
 * The records chainvisor keeps for its own safety (the sign record, the node and lock records, the
 * restore journal, the backups and restores made, all in `cosmovisor/.chainvisor/`) read back in one
 * way: a regular file of bounded size (./fsread's bounded reader: a FIFO or a device there is
 * refused, never waited on), JSON of bounded depth, no key twice, then a strict schema — exactly the
 * shape chainvisor writes, nothing missing and nothing more.
 * Why, and the rest of its rules: docs/design/reading-and-redacting.md#sharedfsreadrecordts.
 */
import path from 'node:path';

import * as v from 'valibot';

import { checkShape, parseJsonValue } from '../json.js';
import { readBounded } from './bounded.js';

export type RecordRead<T> = { status: 'missing' } | { status: 'ok'; value: T } | { status: 'damaged'; reason: string };

/** A record is small; more than this is not one chainvisor wrote. */
const recordMaxBytes = 1024 * 1024;
/** The deepest record chainvisor writes has 3 levels. */
const recordMaxDepth = 16;

/** The record at `file` checked against `schema`: missing, ok, or damaged with the reason. */
export async function readRecord<S extends v.GenericSchema>(file: string, schema: S, maxBytes = recordMaxBytes): Promise<RecordRead<v.InferOutput<S>>> {
  const read = await readBounded(file, maxBytes);
  if (read.status === 'missing') return read;
  if (read.status === 'refused') return { status: 'damaged', reason: read.reason };
  return parseRecord(read.text, schema, maxBytes);
}

/** A record's text (a file, or what a lock holder answers) checked against `schema`. */
export function parseRecord<S extends v.GenericSchema>(text: string, schema: S, maxBytes = recordMaxBytes): RecordRead<v.InferOutput<S>> {
  if (text.trim() === '') return { status: 'damaged', reason: text === '' ? 'it is empty (0 bytes)' : 'it holds only white space' };
  const parsed = parseJsonValue(text, { maxBytes, maxDepth: recordMaxDepth });
  if (!parsed.ok) return { status: 'damaged', reason: parsed.reason };
  // JSON.parse keeps the last of two equal keys without a word; chainvisor never writes one twice.
  const twice = duplicateKey(text);
  if (twice !== undefined) return { status: 'damaged', reason: `it has the key ${JSON.stringify(twice)} twice in one object` };
  const shaped = checkShape(parsed.value, schema);
  return shaped.ok ? { status: 'ok', value: shaped.value } : { status: 'damaged', reason: `it is not the shape chainvisor writes (${shaped.reason})` };
}

/**
 * The first key found twice in one object of `text`, which must be valid JSON (JSON.parse said so) of
 * bounded depth. Keys are compared as JSON.parse reads them (`"a"` and `"\u0061"` are one key).
 */
export function duplicateKey(text: string): string | undefined {
  // One entry per open object ({}: its keys so far) or array (undefined).
  const open: (Set<string> | undefined)[] = [];
  let keyNext = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      for (i++; text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
      const keys = open.at(-1);
      if (keyNext && keys !== undefined) {
        const key = JSON.parse(text.slice(start, i + 1)) as string;
        if (keys.has(key)) return key;
        keys.add(key);
      }
      keyNext = false;
    } else if (c === 0x7b) {
      open.push(new Set());
      keyNext = true;
    } else if (c === 0x5b) {
      open.push(undefined);
      keyNext = false;
    } else if (c === 0x7d || c === 0x5d) {
      open.pop();
      keyNext = false;
    } else if (c === 0x2c) keyNext = open.at(-1) !== undefined;
  }
  return undefined;
}

/** The fields several records share. */
export const recordFields = {
  /** An absolute path, as chainvisor records every path. */
  absolutePath: v.pipe(
    v.string(),
    v.check((p) => path.isAbsolute(p) && !p.includes('\0'), 'not an absolute path'),
  ),
  /** A binary folder `current` may point at: `genesis` or `upgrades/<name>` (never a path leading elsewhere). */
  binaryDir: v.pipe(
    v.string(),
    v.check((d) => d === 'genesis' || /^upgrades\/(?!\.\.?$)[^/\0]+$/.test(d), 'not genesis or upgrades/<name>'),
  ),
  /** A count, size or pid: an integer from 0. */
  count: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
};
