/**
 * Where the node listens, as a Cosmos node decides it: the start flags (`--rpc.laddr`, `--grpc.enable`,
 * `--grpc.address`, `--api.enable`, `--api.address`) over `config/config.toml` `[rpc] laddr` and
 * `config/app.toml` `[grpc]`/`[api]` `enable`/`address`, over the SDK's defaults. `init` writes
 * `[rpc] laddr` with config.toml (node-config.ts) and adds the app.toml keys a home lacks (`initAppListenConfig`).
 *
 * REST: the SDK's default is off, and `init` writes `[api] enable = false`; a home whose app.toml has no
 * `[api] enable` (made before `init` wrote it) keeps the REST server on, as the simulated node always ran it.
 */
import path from 'node:path';

import { stringify } from 'smol-toml';

import { writeFileAtomic } from '../util/atomic-write.js';
import { SimError } from '../util/errors.js';
import { appTomlPath } from './app-config.js';
import { readTomlFile } from './toml-file.js';

export interface ListenConfig {
  /** `tcp://host:port`. */
  rpcLaddr: string;
  grpc: { enable: boolean; address: string };
  api: { enable: boolean; address: string };
}

/** The SDK's defaults (CometBFT DefaultRPCConfig, SDK serverconfig.DefaultConfig). */
export const listenDefaults = {
  rpcLaddr: 'tcp://127.0.0.1:26657',
  grpc: { enable: true, address: 'localhost:9090' },
  api: { enable: false, address: 'tcp://localhost:1317' },
} as const;

export interface ListenFlags {
  strings: Readonly<Record<string, string | undefined>>;
  booleans: Readonly<Record<string, boolean | undefined>>;
}

type Table = Record<string, unknown>;

export const configTomlPath = (home: string) => path.join(home, 'config', 'config.toml');

function section(doc: Table | undefined, name: string): Table | undefined {
  const value = doc?.[name];
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Table) : undefined;
}

function fileString(doc: Table | undefined, name: string, key: string, file: string): string | undefined {
  const value = section(doc, name)?.[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new SimError('SIM_CONFIG', `${file}: [${name}] ${key} must be a string, got ${JSON.stringify(value)}`);
  return value;
}

function fileBool(doc: Table | undefined, name: string, file: string): boolean | undefined {
  const value = section(doc, name)?.enable;
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw new SimError('SIM_CONFIG', `${file}: [${name}] enable must be true or false, got ${JSON.stringify(value)}`);
  return value;
}

export async function resolveListenConfig(home: string, flags: ListenFlags): Promise<ListenConfig> {
  const configFile = configTomlPath(home);
  const appFile = appTomlPath(home);
  const [config, app] = await Promise.all([readTomlFile(configFile), readTomlFile(appFile)]);
  const { strings, booleans } = flags;
  return {
    rpcLaddr: strings['rpc.laddr'] ?? fileString(config, 'rpc', 'laddr', configFile) ?? listenDefaults.rpcLaddr,
    grpc: {
      enable: booleans['grpc.enable'] ?? fileBool(app, 'grpc', appFile) ?? listenDefaults.grpc.enable,
      address: strings['grpc.address'] ?? fileString(app, 'grpc', 'address', appFile) ?? listenDefaults.grpc.address,
    },
    api: {
      // No key at all: a home from before `init` wrote one, whose node always served REST.
      enable: booleans['api.enable'] ?? fileBool(app, 'api', appFile) ?? true,
      address: strings['api.address'] ?? fileString(app, 'api', 'address', appFile) ?? listenDefaults.api.address,
    },
  };
}

/**
 * `init`: app.toml's `[grpc]` and `[api]` keys with the SDK's defaults, added where the file lacks them;
 * the SDK writes app.toml only when there is none, so values already there (and every other key) stay.
 */
export async function initAppListenConfig(home: string): Promise<void> {
  const appFile = appTomlPath(home);
  const app = (await readTomlFile(appFile)) ?? {};
  app.grpc = { ...listenDefaults.grpc, ...section(app, 'grpc') };
  app.api = { ...listenDefaults.api, ...section(app, 'api') };
  await writeFileAtomic(appFile, `${stringify(app)}\n`, 0o644);
}
