/**
 * Resolve the configuration from a JSON file (optional) and the environment (which overrides the
 * file), validate every setting, and report every problem at once.
 */
import fs from 'node:fs';
import path from 'node:path';

import { ConfigError, type ConfigProblem, isErrno } from '../shared/errors/index.js';
import { readBoundedSync } from '../shared/fsread/index.js';
import { checkShape, jsonObject, parseJsonValue } from '../shared/json.js';
import { redactSecretUrl } from '../shared/redact.js';
import { parseGrpcAddress, parseRpcAddress } from './addresses.js';
import { readCosmovisorToml } from './cosmovisor-toml.js';
import { parseNetworkRpc } from './network-rpc.js';
import { type Config, fileKey, fileSettings, type RawConfig, type SettingKey, settingKeys, settings, type SettingSpec } from './schema.js';
import { parseUpgradeSources, upgradeSourceProblems } from './upgrade-sources.js';
import {
  maxFileNameBytes,
  parseAbsPath,
  parseBool,
  parseBytes,
  parseCount,
  type Parsed,
  parseDuration,
  parseEnum,
  parseFileName,
  parseHostList,
} from './values.js';

export interface LoadOptions {
  /** Usually `process.env`. */
  env: NodeJS.ProcessEnv;
  /** A `--config` path (JSON); `CHAINVISOR_CONFIG` is used when absent. */
  configFile?: string;
  /** A `--cosmovisor-config` path (cosmovisor's config.toml). */
  cosmovisorConfigFile?: string;
}

/**
 * Where each value came from, for `chainvisor config`. Precedence, highest first: the environment,
 * the JSON `--config` file, cosmovisor's `--cosmovisor-config` TOML file, the default.
 */
export type Source = 'env' | 'file' | 'cosmovisor-config' | 'default';

export interface LoadedConfig {
  config: Config;
  sources: Record<SettingKey, Source>;
  configFile: string | undefined;
  cosmovisorConfigFile: string | undefined;
  /** Keys of the cosmovisor config.toml that are no setting: ignored, as cosmovisor ignores them (the command warns). */
  ignoredKeys: string[];
}

export function loadConfig(options: LoadOptions): LoadedConfig {
  const problems: ConfigProblem[] = [];
  const configFile = options.configFile ?? nonEmpty(options.env.CHAINVISOR_CONFIG);
  const fromFile = configFile === undefined ? {} : readConfigFile(configFile, problems);
  const cosmovisorConfigFile = options.cosmovisorConfigFile;
  const ignoredKeys: string[] = [];
  const fromToml = cosmovisorConfigFile === undefined ? {} : readCosmovisorToml(cosmovisorConfigFile, problems, ignoredKeys);

  const raw: RawConfig = {};
  const sources = {} as Record<SettingKey, Source>;
  const labels = {} as Record<SettingKey, string>;
  for (const key of settingKeys) {
    const envValue = nonEmpty(options.env[settings[key].env]);
    const fileValue = fromFile[key];
    const tomlValue = fromToml[key];
    if (envValue !== undefined) {
      raw[key] = envValue;
      sources[key] = 'env';
      labels[key] = settings[key].env;
    } else if (fileValue !== undefined) {
      raw[key] = fileValue;
      sources[key] = 'file';
      labels[key] = `${fileKey(key)} in ${configFile}`;
    } else if (tomlValue !== undefined) {
      raw[key] = tomlValue;
      sources[key] = 'cosmovisor-config';
      labels[key] = `${fileKey(key)} in ${cosmovisorConfigFile}`;
    } else {
      sources[key] = 'default';
      labels[key] = settings[key].env;
    }
  }

  const values: Partial<Record<SettingKey, unknown>> = {};
  // With backups skipped the backup folder is never used, so any value is accepted (as cosmovisor does).
  const skipBackup = parseBool(raw.unsafeSkipBackup ?? settings.unsafeSkipBackup.default);
  for (const key of settingKeys) {
    const spec: SettingSpec = settings[key];
    const text = raw[key] ?? spec.default;
    if (text === undefined) {
      if (spec.required) {
        problems.push({ setting: labels[key], message: `is required: ${spec.description}` });
      }
      continue;
    }
    if (key === 'dataBackupDir' && skipBackup.ok && skipBackup.value) {
      values[key] = text;
      continue;
    }
    const parsed = parseValue(spec, text);
    if (parsed.ok) values[key] = parsed.value;
    // A refused value is shown as `chainvisor config` shows it: credentials and secrets stay hidden.
    else problems.push({ setting: labels[key], value: shownValue(spec, text), message: parsed.message });
  }

  // Derived default, then the cross-setting checks.
  if (values.dataBackupDir === undefined && values.home !== undefined) values.dataBackupDir = values.home;
  if (values.rehearsalDir === undefined && typeof values.home === 'string') values.rehearsalDir = path.join(values.home, 'cosmovisor');
  if (values.unsafeSkipBackup === false && typeof values.dataBackupDir === 'string' && sources.dataBackupDir !== 'default') {
    const folder = folderState(values.dataBackupDir);
    if (folder !== 'folder') {
      problems.push({
        setting: labels.dataBackupDir,
        value: values.dataBackupDir,
        message:
          folder === 'missing'
            ? 'the backup folder does not exist; create it, or set UNSAFE_SKIP_BACKUP=true to skip backups'
            : `the backup folder cannot be used: ${folder}; point it at a folder, or set UNSAFE_SKIP_BACKUP=true to skip backups`,
      });
    }
  }

  if (typeof values.home === 'string' && typeof values.name === 'string') {
    const longest = longestPathBytes(values.home, values.name);
    if (longest > maxPathBytes) {
      problems.push({
        setting: labels.name,
        value: values.name,
        message:
          `with DAEMON_HOME (${Buffer.byteLength(values.home)} bytes) the longest path chainvisor makes, ` +
          `$DAEMON_HOME/cosmovisor/upgrades/<upgrade folder, up to ${maxFileNameBytes} bytes>/bin/<a temporary copy of the binary>, ` +
          `is ${longest} bytes, past the ${maxPathBytes} a path may have: an upgrade would fail at the halt; use a shorter DAEMON_HOME or DAEMON_NAME`,
      });
    }
  }

  problems.push(...upgradeSourceProblems(values, (key) => labels[key]));
  if (problems.length > 0) throw new ConfigError(problems);
  return { config: values as Config, sources, configFile, cosmovisorConfigFile, ignoredKeys };
}

function parseValue(spec: SettingSpec, text: string): Parsed<unknown> {
  switch (spec.kind) {
    case 'absPath':
      return parseAbsPath(text);
    case 'fileName':
      return parseFileName(text, { optional: spec.required !== true });
    case 'bool':
      return parseBool(text);
    case 'duration':
      return inRange(parseDuration(text), spec, 'ms');
    case 'durationOrOff':
      return text.trim().toLowerCase() === 'off' ? { ok: true, value: 0 } : inRange(parseDuration(text), spec, 'ms');
    case 'hostList':
      return parseHostList(text);
    case 'count':
      return inRange(parseCount(text), spec, '');
    case 'bytes':
      return inRange(parseBytes(text), spec, ' bytes');
    case 'enum':
      return parseEnum(text, spec.values ?? []);
    case 'string':
      return { ok: true, value: text };
    case 'grpcAddress':
      return parseGrpcAddress(text);
    case 'rpcAddress':
      return parseRpcAddress(text);
    case 'rpcUrls':
      return parseNetworkRpc(text);
    case 'sourceList':
      return parseUpgradeSources(text);
  }
}

function shownValue(spec: SettingSpec, text: string): string {
  if (spec.redact === 'secret') return '(hidden)';
  if (spec.redact === 'urls')
    return text
      .split(',')
      .map((url) => redactSecretUrl(url.trim()))
      .join(',');
  return text;
}

/**
 * Node's timers hold at most 2^31-1 ms (about 24.8 days); a longer delay fires at once, which for
 * DAEMON_SHUTDOWN_GRACE would mean an immediate SIGKILL. It is every duration's maximum, unless the
 * setting has a lower one.
 */
const maxTimerMs = 2 ** 31 - 1;

const timerMax = {
  value: maxTimerMs,
  shown: `${maxTimerMs}ms (about 24.8 days; use 596h or less)`,
  why: 'chainvisor cannot wait longer (a longer timer would fire at once)',
} as const;

/**
 * One rule for every number: under the setting's minimum (a poll interval of 0 would spin the CPU) or
 * past its maximum (its own, else what the kind can hold: ./values.ts refuses past 2^53 - 1, and a
 * duration past the timer limit) is refused, saying the limit and why.
 */
function inRange(parsed: Parsed<number>, spec: SettingSpec, unit: string): Parsed<number> {
  if (!parsed.ok) return parsed;
  const { min } = spec;
  if (min !== undefined && parsed.value < min.value && !(min.zeroTurnsOff && parsed.value === 0)) {
    return { ok: false, message: `must be at least ${min.shown ?? `${min.value}${unit}`}${min.zeroTurnsOff ? ' (or 0s)' : ''}: ${min.why}` };
  }
  const max = spec.max ?? (spec.kind === 'duration' || spec.kind === 'durationOrOff' ? timerMax : undefined);
  if (max !== undefined && parsed.value > max.value) {
    return { ok: false, message: `must be at most ${max.shown ?? `${max.value}${unit}`}: ${max.why}` };
  }
  return parsed;
}

/** PATH_MAX (4096 on Linux) counts the ending NUL: a path may have 4095 bytes. */
const maxPathBytes = 4095;

/**
 * The longest path `run` names itself under the home, in bytes: an upgrade's binary while it is copied
 * in place, `$DAEMON_HOME/cosmovisor/upgrades/<folder>/bin/.<name>.tmp-<pid>-<8 hex>` (../layout/atomic.ts
 * keeps that temporary name a file name), with the longest folder a plan name can give; genesis/ and
 * .chainvisor/ paths are shorter. (A rehearsal's scratch home is one folder deeper: `rehearse` fails
 * there, never `run`.)
 */
function longestPathBytes(home: string, name: string): number {
  const temporary = Math.min(maxFileNameBytes, Buffer.byteLength(name) + '..tmp-4194304-01234567'.length);
  return Buffer.byteLength(path.join(home, 'cosmovisor', 'upgrades')) + 1 + maxFileNameBytes + '/bin/'.length + temporary;
}

/** Config files are a few KiB; anything over 1 MiB (or not a regular file) is refused, never read whole. */
export const maxConfigFileBytes = 1024 * 1024;

/** Reads the JSON file into raw strings, adding a problem for anything unreadable or unknown. */
function readConfigFile(file: string, problems: ConfigProblem[]): RawConfig {
  const read = readBoundedSync(file, maxConfigFileBytes);
  if (read.status !== 'ok') {
    const reason = read.status === 'missing' ? 'the file does not exist' : read.reason;
    problems.push({ setting: 'config file', value: file, message: `cannot be read: ${reason}` });
    return {};
  }
  const raw = parseJsonValue(read.text, { maxBytes: maxConfigFileBytes });
  if (!raw.ok) {
    problems.push({ setting: 'config file', value: file, message: `is not valid JSON: ${raw.reason}` });
    return {};
  }
  // fileSettings names each key that is not a setting (`__proto__` too) and checks each value.
  const parsed = checkShape(raw.value, jsonObject);
  if (!parsed.ok) {
    problems.push({ setting: 'config file', value: file, message: 'must hold a JSON object of settings' });
    return {};
  }
  return fileSettings(parsed.value, file, problems, (value, kind) => {
    if (typeof value === 'string') return value;
    if (typeof value === 'boolean' && kind === 'bool') return String(value);
    // A bare number for a duration is refused by parseDuration with a hint to add a unit.
    if (typeof value === 'number' && (kind === 'count' || kind === 'bytes' || kind === 'duration' || kind === 'durationOrOff')) return String(value);
    return { wrong: `expected ${expectedJson(kind)}` };
  });
}

function expectedJson(kind: string): string {
  if (kind === 'bool') return 'true or false';
  if (kind === 'count' || kind === 'bytes') return 'a number or a string';
  return 'a string';
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** `folder`, `missing`, or what is wrong (a file, a link loop, no permission). */
function folderState(dir: string): string {
  try {
    const stats = fs.statSync(dir);
    return stats.isDirectory() ? 'folder' : 'it is not a folder';
  } catch (error) {
    if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR')) return 'missing';
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code !== 'string') throw error;
    return code === 'ELOOP' ? 'it is a symbolic link loop (ELOOP)' : `${(error as Error).message}`;
  }
}
