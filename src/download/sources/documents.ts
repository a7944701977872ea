/**
 * The two documents a source can be besides the plan, read as data from the network (issue #34): an
 * operator's registry (`{"upgrades": […]}`) and a chain registry `versions.json` (`{"versions": […]}`).
 * Parsed within bounds, then a schema; a document of the wrong shape is refused as a whole.
 * Why, and the rest of its rules: docs/design/downloads.md#downloadsourcesdocumentsts.
 */
import * as v from 'valibot';

import { type JsonResult, parseJson } from '../../shared/json.js';

/** One upgrade as a source lists it. */
export interface SourceEntry {
  name: string;
  height: number | undefined;
  /** Platform key → URL as written; empty when the entry lists none. */
  binaries: Map<string, string>;
}

export type DocumentKind = 'registry' | 'chain-registry';

/** A fleet's registry or a chain's versions.json is a few KiB to a few hundred; past this it is not one. */
export const maxSourceBytes = 2 * 1024 * 1024;
/** versions.json nests `sdk`, `consensus` and a few lists: 6 levels; 16 leaves room, not a stack. */
export const sourceBounds = { maxBytes: maxSourceBytes, maxDepth: 16, maxContainers: 100_000 };

const keyPattern = /^[a-z0-9]+\/[a-z0-9]+$/i;

const binariesSchema = v.pipe(
  v.custom<Record<string, unknown>>((value) => value !== null && typeof value === 'object' && !Array.isArray(value), 'expected an object of platform → URL'),
  v.check((value) => Object.keys(value).every((key) => key === 'any' || keyPattern.test(key)), 'each key must be "<os>/<arch>" (linux/amd64) or "any"'),
  v.check((value) => Object.keys(value).every((key) => typeof value[key] === 'string'), 'each value must be a URL string'),
);

const entrySchema = v.looseObject({
  name: v.pipe(v.string(), v.nonEmpty('expected a non-empty upgrade name'), v.maxLength(256)),
  height: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  binaries: v.optional(binariesSchema),
});

const registrySchema = v.looseObject({ upgrades: v.pipe(v.array(entrySchema), v.maxLength(10_000)) });
const versionsSchema = v.looseObject({ versions: v.pipe(v.array(entrySchema), v.maxLength(10_000)) });

/** The entries of a document, or why it is refused. */
export function parseSourceDocument(kind: DocumentKind, text: string): JsonResult<SourceEntry[]> {
  let list: Array<v.InferOutput<typeof entrySchema>>;
  if (kind === 'registry') {
    const parsed = parseJson(text, registrySchema, sourceBounds);
    if (!parsed.ok) return parsed;
    list = parsed.value.upgrades;
  } else {
    const parsed = parseJson(text, versionsSchema, sourceBounds);
    if (!parsed.ok) return parsed;
    list = parsed.value.versions;
  }
  return { ok: true, value: list.map((entry) => ({ name: entry.name, height: entry.height, binaries: binariesOf(entry.binaries) })) };
}

function binariesOf(map: Record<string, unknown> | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (map === undefined) return out;
  for (const key of Object.keys(map)) out.set(key, map[key] as string);
  return out;
}

export type EntryMatch = { entry: SourceEntry } | { none: 'no-entry' } | { none: 'height-differs'; heights: number[] };

/**
 * The entry for a plan: same name, and same height when both have one. An entry of the same name at
 * another height is another upgrade (a re-proposal, a registry not yet updated): not used, and said.
 */
export function matchEntry(entries: readonly SourceEntry[], name: string, height: number | undefined): EntryMatch {
  const named = entries.filter((entry) => entry.name === name);
  const fitting = named.find((entry) => height === undefined || entry.height === undefined || entry.height === height);
  if (fitting !== undefined) return { entry: fitting };
  if (named.length === 0) return { none: 'no-entry' };
  return { none: 'height-differs', heights: named.map((entry) => entry.height as number) };
}
