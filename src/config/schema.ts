/**
 * The one description of every setting: its environment variable, type, default and meaning.
 * The resolved `Config` type, validation, `chainvisor config`, the table in docs/settings.md and
 * `config.example.json` are all derived from this list.
 */

import type { SettingKind } from '../shared/setting-spec.js';
import { aheadSettings } from './settings/ahead.js';
import { cosmovisorSettings } from './settings/cosmovisor.js';
import { downloadSettings } from './settings/download.js';
import { governanceSettings } from './settings/governance.js';
import { observeSettings } from './settings/observe.js';
import { restartSettings } from './settings/restart.js';
import { sourceSettings } from './settings/sources.js';
import { twinSettings } from './settings/twin.js';

export type { SettingKind, SettingSpec } from '../shared/setting-spec.js';

/** In the order `chainvisor config` and docs/settings.md list them. */
export const settings = {
  ...cosmovisorSettings,
  ...downloadSettings,
  ...sourceSettings,
  ...restartSettings,
  ...observeSettings,
  ...aheadSettings,
  ...governanceSettings,
  ...twinSettings,
};

export type SettingKey = keyof typeof settings;

/** The value type each kind resolves to: durations and byte sizes become numbers (ms, bytes). */
interface KindValue {
  absPath: string;
  fileName: string;
  bool: boolean;
  duration: number;
  durationOrOff: number;
  count: number;
  bytes: number;
  string: string;
  enum: string;
  hostList: string;
  grpcAddress: string;
  rpcAddress: string;
  rpcUrls: string;
  sourceList: string;
}

type ValueOf<S> = S extends { kind: 'enum'; values: readonly (infer V)[] } ? V : S extends { kind: infer K extends SettingKind } ? KindValue[K] : never;

/** Resolved settings: every value present, typed, durations in milliseconds, sizes in bytes. */
export type Config = { readonly [K in SettingKey]: ValueOf<(typeof settings)[K]> };

/** Settings as written in a config file or the environment, before validation. */
export type RawConfig = Partial<Record<SettingKey, string>>;

export const settingKeys = Object.keys(settings) as SettingKey[];

/** The config-file key of a setting: its variable name in lower case. */
export function fileKey(key: SettingKey): string {
  return settings[key].env.toLowerCase();
}

/**
 * The settings of a parsed settings file (chainvisor's JSON, cosmovisor's TOML): keys matched to
 * settings, values turned into the raw text an environment variable would hold by `asText`, which
 * answers `{ wrong }` for a value of the wrong type. Wrong types are added to `problems`, and so are unknown
 * keys, unless `unknown` is given: then they are handed to it (cosmovisor's TOML, whose unknown keys are ignored).
 */
export function fileSettings(
  entries: Record<string, unknown>,
  file: string,
  problems: Array<{ setting: string; value?: string; message: string }>,
  asText: (value: unknown, kind: SettingKind) => string | { wrong: string },
  unknown?: (name: string) => void,
): RawConfig {
  const byFileKey = new Map(settingKeys.map((key) => [fileKey(key), key]));
  const raw: RawConfig = {};
  for (const [name, value] of Object.entries(entries)) {
    const key = byFileKey.get(name.toLowerCase());
    const label = `${name} in ${file}`;
    if (key === undefined && unknown !== undefined) {
      unknown(name);
      continue;
    }
    if (key === undefined) {
      problems.push({ setting: label, message: "unknown setting; keys are the lower-cased variable names that 'chainvisor config' lists" });
      continue;
    }
    const text = asText(value, settings[key].kind);
    if (typeof text === 'string') raw[key] = text;
    else problems.push({ setting: label, value: JSON.stringify(typeof value === 'bigint' ? String(value) : value), message: text.wrong });
  }
  return raw;
}
