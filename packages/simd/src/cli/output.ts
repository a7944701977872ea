/**
 * Printing results: `--output json` is compact JSON; `--output text` is the YAML Cosmos CLIs print
 * (keys sorted, 64-bit integers as quoted strings).
 */
import { UsageProblem } from './args.js';

export type OutputFormat = 'json' | 'text';

export function outputFormat(value: string | undefined, fallback: OutputFormat): OutputFormat {
  if (value === undefined) return fallback;
  if (value === 'json' || value === 'text') return value;
  throw new UsageProblem(`invalid --output ${JSON.stringify(value)}: expected json or text`);
}

const plain = /^[A-Za-z_/][A-Za-z0-9_./@:-]*$/;
const reserved = /^(true|false|null|yes|no|on|off|~)$/i;

function scalar(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return plain.test(value) && !reserved.test(value) && !value.endsWith(':') ? value : JSON.stringify(value);
  return String(value);
}

function yaml(value: unknown, indent: string): string[] {
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${indent}[]`];
    return value.flatMap((item) => {
      const lines = yaml(item, `${indent}  `);
      const first = (lines[0] as string).slice(indent.length + 2);
      return [`${indent}- ${first}`, ...lines.slice(1)];
    });
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (entries.length === 0) return [`${indent}{}`];
    return entries.flatMap(([key, item]) => {
      const isBlock = item !== null && typeof item === 'object' && (Array.isArray(item) ? item.length > 0 : Object.keys(item).length > 0);
      const name = scalar(key);
      if (!isBlock) return [`${indent}${name}: ${Array.isArray(item) ? '[]' : typeof item === 'object' && item !== null ? '{}' : scalar(item)}`];
      return [`${indent}${name}:`, ...yaml(item, Array.isArray(item) ? indent : `${indent}  `)];
    });
  }
  return [`${indent}${scalar(value)}`];
}

export function toYaml(value: unknown): string {
  return `${yaml(value, '').join('\n')}\n`;
}

export function render(value: unknown, format: OutputFormat): string {
  return format === 'json' ? `${JSON.stringify(value)}\n` : toYaml(value);
}
