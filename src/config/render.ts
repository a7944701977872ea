/** Views of the schema: the resolved settings, `config.example.json` and the settings table of docs/settings.md. */
import { redactSecretUrl } from '../shared/redact.js';
import type { LoadedConfig } from './load.js';
import { fileKey, type SettingKey, settingKeys, settings, type SettingSpec } from './schema.js';

function formatValue(key: SettingKey, value: unknown): string {
  const kind = settings[key].kind;
  if (value === undefined) return '';
  const redact = (settings[key] as SettingSpec).redact;
  if (redact === 'secret') return value === '' ? '(not set)' : '(set, hidden)';
  if (redact === 'urls' && value !== '')
    return String(value)
      .split(',')
      .map((url) => redactSecretUrl(url.trim()))
      .join(',');
  if (kind === 'duration') return formatDuration(value as number);
  if (kind === 'durationOrOff') return value === 0 ? 'off' : formatDuration(value as number);
  if (kind === 'bytes') return `${value} bytes`;
  return String(value);
}

export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/** The resolved settings as `NAME=value  (source)` lines. */
export function formatSettings(loaded: LoadedConfig): string[] {
  const width = Math.max(...settingKeys.map((key) => settings[key].env.length));
  return settingKeys.map((key) => {
    const value = formatValue(key, loaded.config[key]);
    const from = loaded.sources[key];
    const source = from === 'file' ? `file ${loaded.configFile}` : from === 'cosmovisor-config' ? `cosmovisor config ${loaded.cosmovisorConfigFile}` : from;
    return `${settings[key].env.padEnd(width)}  ${value === '' ? '(empty)' : value}  [${source}]`;
  });
}

/** `config.example.json`: every setting with its default, keys as the config file spells them. */
export function renderExample(): string {
  const example: Record<string, string> = {};
  for (const key of settingKeys) {
    const spec: SettingSpec = settings[key];
    if (key === 'home') example[fileKey(key)] = '/home/node/.simapp';
    else if (key === 'name') example[fileKey(key)] = 'simd';
    else if (spec.default !== undefined) example[fileKey(key)] = spec.default;
  }
  return `${JSON.stringify(example, null, 2)}\n`;
}

/** The Markdown table of settings, for docs/settings.md. */
export function renderDocsTable(): string {
  const rows = settingKeys.map((key) => {
    const spec: SettingSpec = settings[key];
    const def = spec.required ? 'required' : (spec.defaultDoc ?? (spec.default === '' ? 'empty' : `\`${spec.default}\``));
    const values = spec.values ? ` One of: ${spec.values.map((v) => `\`${v}\``).join(', ')}.` : '';
    const min = spec.min
      ? ` At least \`${spec.min.shown ?? (spec.kind === 'duration' || spec.kind === 'durationOrOff' ? formatDuration(spec.min.value) : spec.min.value)}\`${spec.min.zeroTurnsOff ? ' (or `0s`)' : ''}.`
      : '';
    const max = spec.max ? ` At most \`${spec.max.shown ?? spec.max.value}\`.` : '';
    return `| \`${spec.env}\` | ${def} | ${spec.description}${values}${min}${max} |`;
  });
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}
