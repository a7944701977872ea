/**
 * JSON that chainvisor did not write itself, or that a damaged disk may have changed: a node's answer,
 * a file in the home, a registry. Parsed within bounds (`maxBytes`, `maxDepth`, `maxContainers`, `maxEntries`), then
 * checked against a schema (valibot), in one step. A result, never a throw, for what is in the text:
 * the caller turns `reason` into its own coded error.
 * Why, and the rest of its rules: docs/design/reading-and-redacting.md#sharedjsonts.
 */
import * as v from 'valibot';

export interface JsonBounds {
  /** Characters; 1 MiB by default. */
  maxBytes?: number;
  /** Nesting of objects and arrays; 64 by default. */
  maxDepth?: number;
  /** Objects and arrays in the whole text; not bounded by default. */
  maxContainers?: number;
  /** Entries of all objects and arrays together (`[0,0,…]` is one container of millions); not bounded by default. */
  maxEntries?: number;
}

export type JsonResult<T> = { ok: true; value: T } | { ok: false; reason: string };

const defaultMaxBytes = 1024 * 1024;
const defaultMaxDepth = 64;

/** `text` parsed as JSON and checked against `schema`, within `bounds`. */
export function parseJson<S extends v.GenericSchema>(text: string, schema: S, bounds: JsonBounds = {}): JsonResult<v.InferOutput<S>> {
  const raw = parseJsonValue(text, bounds);
  if (!raw.ok) return raw;
  return checkShape(raw.value, schema);
}

/** `text` parsed as JSON within `bounds`, its shape not checked (the caller checks it, or a schema is given to parseJson). */
export function parseJsonValue(text: string, bounds: JsonBounds = {}): JsonResult<unknown> {
  const maxBytes = bounds.maxBytes ?? defaultMaxBytes;
  const maxDepth = bounds.maxDepth ?? defaultMaxDepth;
  if (text.length > maxBytes) return { ok: false, reason: `it is too large (${text.length} characters, over the limit of ${maxBytes})` };
  const maxContainers = bounds.maxContainers ?? Number.MAX_SAFE_INTEGER;
  const maxEntries = bounds.maxEntries ?? Number.MAX_SAFE_INTEGER;
  const scan = scanJson(text, { maxDepth, maxContainers, maxEntries });
  if (scan.deepest > maxDepth) return { ok: false, reason: `it is nested deeper than ${maxDepth} levels` };
  if (scan.containers > maxContainers) return { ok: false, reason: `it holds more than ${maxContainers} objects and arrays` };
  if (scan.entries > maxEntries) return { ok: false, reason: `it holds more than ${maxEntries} values` };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, reason: `it is not JSON (${(error as Error).message})` };
  }
}

/**
 * A JSON object, not an array, whose keys the caller reads itself: where any string can be a key (a
 * folder, a setting, a platform), valibot's objects and records would leave out `__proto__` and its
 * kin, which must be reported or kept, not dropped. (An object schema also lets an array through.)
 */
export const jsonObject = v.custom<Record<string, unknown>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  (issue) => `expected a JSON object, got ${Array.isArray(issue.input) ? 'an array' : issue.received}`,
);

/** `value` checked against `schema`; the reason names the first place that does not match. */
export function checkShape<S extends v.GenericSchema>(value: unknown, schema: S): JsonResult<v.InferOutput<S>> {
  const result = v.safeParse(schema, value, { abortEarly: true });
  if (result.success) return { ok: true, value: result.output };
  return { ok: false, reason: describeIssue(result.issues[0]) };
}

/** The issue's place and message; both can quote what the text holds, so both are made safe to print. */
function describeIssue(issue: v.BaseIssue<unknown>): string {
  const where = (issue.path ?? []).map((item) => (typeof item.key === 'number' ? `[${item.key}]` : `.${shownText(String(item.key), 80)}`)).join('');
  const message = shownText(issue.message, 300);
  return where === '' ? message : `${where.replace(/^\./, '')}: ${message}`;
}

/**
 * Text someone else chose, made safe to print: control and format characters (terminal escapes, bidi
 * overrides) escaped, and at most `max` characters kept. For reasons and messages in log lines.
 */
export function shownText(text: string, max = 200): string {
  const clipped = text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
  return clipped.replace(/\p{C}/gu, (c) => `\\u{${(c.codePointAt(0) as number).toString(16)}}`);
}

/**
 * Text of several lines made safe to print where a person reads it (the command's error lines, the text
 * and journal logs): each line as shownText, unclipped, and every line after the first indented (when it
 * is not already), so that nothing quoted from outside (an RPC's error, a node's output) can pass for a
 * line of its own.
 */
export function shownLines(text: string): string {
  return text
    .split('\n')
    .map((line, i) => (i === 0 || /^\s/.test(line) ? '' : '  ') + shownText(line, Number.POSITIVE_INFINITY))
    .join('\n');
}

/**
 * The deepest nesting of `text`, counted up to `stop` + 1 (then the scan ends: the text is refused
 * anyway). Brackets inside strings do not count. Not a validation of the text: JSON.parse does that.
 */
export function nestingDepth(text: string, stop = Number.MAX_SAFE_INTEGER): number {
  return scanJson(text, { maxDepth: stop, maxContainers: Number.MAX_SAFE_INTEGER, maxEntries: Number.MAX_SAFE_INTEGER }).deepest;
}

/**
 * The deepest nesting, the objects and arrays, and their entries (commas, plus one per container: an
 * upper bound) of `text`, in one pass that ends once one passes its bound.
 */
function scanJson(text: string, bounds: Required<Omit<JsonBounds, 'maxBytes'>>): { deepest: number; containers: number; entries: number } {
  const { maxDepth, maxContainers, maxEntries } = bounds;
  let depth = 0;
  let deepest = 0;
  let containers = 0;
  let entries = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (++containers > maxContainers || ++entries > maxEntries) break;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > maxDepth) break;
      }
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c && ++entries > maxEntries) break;
  }
  return { deepest, containers, entries };
}
