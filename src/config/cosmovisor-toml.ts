/**
 * cosmovisor's own configuration file, `$DAEMON_HOME/cosmovisor/config.toml`, as cosmovisor v1.7's
 * `init` writes it and `--cosmovisor-config <file>` reads it: flat keys that are the lower-cased
 * variable names, strings in single quotes, booleans, and durations as integer NANOSECONDS (Go's
 * time.Duration through go-toml), e.g. `daemon_poll_interval = 300000000`. A quoted Go duration
 * (`'30s'`) is accepted too, as cosmovisor (viper) accepts it. chainvisor's own `chainvisor_*` keys
 * may be added to the same file; cosmovisor ignores them. A key that is no setting (a newer cosmovisor's,
 * another tool's) is ignored as cosmovisor ignores it, and named to the caller, who warns (issue #43).
 */
import { parse } from 'smol-toml';

import type { ConfigProblem } from '../shared/errors/index.js';
import { readBoundedSync } from '../shared/fsread/index.js';
import { type Config, fileKey, fileSettings, type RawConfig, type SettingKey, type SettingKind, settings } from './schema.js';

/** The keys cosmovisor writes, in its order (its Config struct's). */
const cosmovisorKeys = [
  'home',
  'name',
  'allowDownloadBinaries',
  'downloadMustHaveChecksum',
  'restartAfterUpgrade',
  'restartDelay',
  'shutdownGrace',
  'pollInterval',
  'unsafeSkipBackup',
  'dataBackupDir',
  'preUpgradeMaxRetries',
  'grpcAddress',
  'disableLogs',
  'colorLogs',
  'timeFormatLogs',
  'customPreUpgrade',
  'disableRecase',
] as const satisfies readonly SettingKey[];

/** Reads a cosmovisor config.toml into raw strings; every problem is added to `problems`, every key that is no setting to `ignored`. */
export function readCosmovisorToml(file: string, problems: ConfigProblem[], ignored: string[]): RawConfig {
  // A regular file of at most 1 MiB: a FIFO or a device at the path is refused, never read.
  const read = readBoundedSync(file, 1024 * 1024);
  if (read.status !== 'ok') {
    const reason = read.status === 'missing' ? 'the file does not exist' : read.reason;
    problems.push({ setting: '--cosmovisor-config', value: file, message: `cannot be read: ${reason}` });
    return {};
  }
  const text = read.text;
  let table: Record<string, unknown>;
  try {
    table = parse(text);
  } catch (error) {
    const first = ((error as Error).message.split('\n')[0] ?? '').trim();
    problems.push({
      setting: '--cosmovisor-config',
      value: file,
      message: `is not valid TOML: ${first}; strings need quotes, for example daemon_shutdown_grace = '30s'`,
    });
    return {};
  }
  const settingsOf = (value: unknown, kind: SettingKind): string | { wrong: string } => {
    const numeric = typeof value === 'number' || typeof value === 'bigint';
    if (typeof value === 'string') return value;
    if (typeof value === 'boolean' && kind === 'bool') return String(value);
    // go-toml writes a time.Duration as its integer count of nanoseconds.
    if (numeric && (kind === 'duration' || kind === 'durationOrOff')) return `${value}ns`;
    if (numeric && (kind === 'count' || kind === 'bytes')) return String(value);
    return { wrong: `has the wrong type for a ${kind} setting` };
  };
  return fileSettings(table, file, problems, settingsOf, (name) => ignored.push(name));
}

/** config.toml for `init`, in cosmovisor's format, from resolved settings. */
export function renderCosmovisorToml(config: Config): string {
  const lines = cosmovisorKeys.map((key) => {
    const value: unknown = config[key];
    const kind = settings[key].kind;
    if (kind === 'duration') return `${fileKey(key)} = ${Math.round((value as number) * 1e6)}`;
    if (typeof value === 'boolean' || typeof value === 'number') return `${fileKey(key)} = ${value}`;
    return `${fileKey(key)} = ${quote(String(value ?? ''))}`;
  });
  return `${lines.join('\n')}\n`;
}

/** A TOML literal string when it can be one (as go-toml writes), else a basic string. */
function quote(text: string): string {
  if (!/['\n\r\u0000-\u001f\u007f]/.test(text)) return `'${text}'`;
  return JSON.stringify(text);
}
