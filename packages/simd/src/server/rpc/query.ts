/**
 * CometBFT's event query language (libs/pubsub/query): conditions joined by `AND`, each
 * `<composite key> <op> <operand>` with op `=`, `<`, `<=`, `>`, `>=`, `CONTAINS` or `EXISTS`, operands
 * 'strings', numbers, `TIME <rfc3339>` or `DATE <yyyy-mm-dd>`. A query matches a map of composite keys
 * (`tm.event`, `tx.height`, `<event type>.<attribute key>`) to values when every condition holds for
 * one of its key's values. Subscriptions, `/tx_search` and `/block_search` all use it.
 */
export type Op = '=' | '<' | '<=' | '>' | '>=' | 'CONTAINS' | 'EXISTS';

export interface Condition {
  key: string;
  op: Op;
  /** A string operand, or a number (TIME and DATE operands become milliseconds since the epoch). */
  value?: string | number;
  kind?: 'string' | 'number' | 'time';
}

export type EventMap = Readonly<Record<string, readonly string[]>>;

const conditionPattern =
  /^\s*([A-Za-z_][\w.\-/]*)\s*(?:(EXISTS)|(<=|>=|=|<|>|CONTAINS)\s*(?:'([^']*)'|(-?\d+(?:\.\d+)?)|TIME\s+(\S+)|DATE\s+(\d{4}-\d{2}-\d{2})))\s*$/;

export function parseQuery(text: string): Condition[] {
  if (text.trim() === '') throw new Error('failed to parse query: the query is empty');
  return text.split(/\s+AND\s+/).map((part) => {
    const match = conditionPattern.exec(part);
    if (match === null) throw new Error(`failed to parse query: invalid condition ${JSON.stringify(part.trim())}`);
    const [, key, exists, op, str, num, time, date] = match;
    if (exists !== undefined) return { key: key as string, op: 'EXISTS' };
    if (str !== undefined) return { key: key as string, op: op as Op, value: str, kind: 'string' };
    if (num !== undefined) return { key: key as string, op: op as Op, value: Number(num), kind: 'number' };
    const ms = Date.parse(time ?? `${date}T00:00:00Z`);
    if (Number.isNaN(ms)) throw new Error(`failed to parse query: invalid time in ${JSON.stringify(part.trim())}`);
    return { key: key as string, op: op as Op, value: ms, kind: 'time' };
  });
}

/** The query's canonical text: two spellings of one query are one subscription (`tm.event = 'Tx'`, `tm.event='Tx'`). */
export function queryKey(conditions: readonly Condition[]): string {
  return conditions.map((c) => (c.op === 'EXISTS' ? `${c.key} EXISTS` : `${c.key} ${c.op} ${c.kind === 'string' ? `'${c.value}'` : c.value}`)).join(' AND ');
}

function compare(actual: number, op: Op, expected: number): boolean {
  switch (op) {
    case '=':
      return actual === expected;
    case '<':
      return actual < expected;
    case '<=':
      return actual <= expected;
    case '>':
      return actual > expected;
    case '>=':
      return actual >= expected;
    default:
      return false;
  }
}

function holds(condition: Condition, value: string): boolean {
  const { op, kind } = condition;
  if (op === 'EXISTS') return true;
  if (op === 'CONTAINS') return value.includes(String(condition.value));
  if (kind === 'string') {
    // A quoted number compares as a number (`tx.height='5'`, as CosmJS writes queries).
    const text = condition.value as string;
    const numeric = /^-?\d+(\.\d+)?$/.test(text);
    if (op === '=') return value === text || (numeric && Number(value) === Number(text));
    return numeric && compare(Number(value), op, Number(text));
  }
  const actual = kind === 'time' ? Date.parse(value) : Number(value);
  return !Number.isNaN(actual) && compare(actual, op, condition.value as number);
}

export function matches(conditions: readonly Condition[], events: EventMap): boolean {
  return conditions.every((c) => (events[c.key] ?? []).some((value) => holds(c, value)));
}

/** The inclusive range a query allows for one numeric key (to narrow a search before matching). */
export function rangeOf(conditions: readonly Condition[], key: string, low: number, high: number): [number, number] {
  let [min, max] = [low, high];
  for (const c of conditions) {
    if (c.key !== key || c.value === undefined || c.kind === 'time') continue;
    const n = Number(c.value);
    if (!Number.isFinite(n)) continue;
    if (c.op === '=') [min, max] = [Math.max(min, n), Math.min(max, n)];
    else if (c.op === '>') min = Math.max(min, Math.floor(n) + 1);
    else if (c.op === '>=') min = Math.max(min, Math.ceil(n));
    else if (c.op === '<') max = Math.min(max, Math.ceil(n) - 1);
    else if (c.op === '<=') max = Math.min(max, Math.floor(n));
  }
  return [min, max];
}

/** `<type>.<key>` → values, as CometBFT flattens ABCI events for matching (empty types and keys skipped). */
export function flattenEvents(events: ReadonlyArray<{ type: string; attributes: ReadonlyArray<{ key: string; value: string }> }>): Record<string, string[]> {
  const map: Record<string, string[]> = {};
  for (const event of events) {
    if (event.type === '') continue;
    for (const { key, value } of event.attributes) {
      if (key === '') continue;
      (map[`${event.type}.${key}`] ??= []).push(value);
    }
  }
  return map;
}
