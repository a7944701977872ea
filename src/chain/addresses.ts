/**
 * Where the node listens, found as the node itself finds it (Cosmos SDK server/start.go, CometBFT
 * config), highest first:
 *   1. the operator's setting: DAEMON_GRPC_ADDRESS, CHAINVISOR_RPC_ADDRESS (see `operatorEndpoints`);
 *   2. the node's own start flags, which chainvisor passes it (`run <node args>`): `--rpc.laddr`,
 *      `--grpc.address`, `--grpc.enable`, as `--flag value` or `--flag=value`;
 *   3. `$DAEMON_HOME/config/config.toml` `[rpc] laddr`, `$DAEMON_HOME/config/app.toml` `[grpc] enable`
 *      and `address`;
 *   4. the SDK's defaults: `tcp://127.0.0.1:26657`, gRPC on at `localhost:9090`.
 * The node's `--home` may in principle name another folder than DAEMON_HOME; cosmovisor assumes the two
 * are the same (it reads upgrade-info.json from DAEMON_HOME), and so does this.
 * A listen address on all interfaces (`0.0.0.0`, `::`, empty host) is dialled on loopback.
 */
import path from 'node:path';

import { parse } from 'smol-toml';

import { type Config, grpcHostPort, type LoadedConfig, rpcEndpoint, settings } from '../config/index.js';
import { readBoundedSync } from '../shared/fsread/index.js';

export interface Endpoint {
  /** What to dial: `host:port` for gRPC; `tcp://host:port` or `unix:///path` for the RPC. */
  address: string;
  /** Where it came from, for `chainvisor config` and log lines: `default`, `flag --rpc.laddr`, `config/config.toml [rpc] laddr` … */
  source: string;
}

export interface ChainAddresses {
  /** `enabled` false: the node serves no gRPC (`source` then says where that came from); never dialled. */
  grpc: Endpoint & { enabled: boolean };
  rpc: Endpoint;
}

export interface ResolveOptions {
  /** DAEMON_HOME: its `config/config.toml` and `config/app.toml` are read. */
  home: string;
  /** The node's arguments (everything after `run`); none for commands that do not start the node. */
  args?: readonly string[];
  /** The operator's settings, which win over everything the node says (`operatorEndpoints`). */
  operator?: { grpc?: Endpoint; rpc?: Endpoint };
}

export const defaultRpcAddress = 'tcp://127.0.0.1:26657';
export const defaultGrpcAddress = settings.grpcAddress.default;

export function resolveChainAddresses(options: ResolveOptions): ChainAddresses {
  const flags = nodeFlags(options.args ?? []);
  const configToml = readToml(path.join(options.home, 'config', 'config.toml'));
  const appToml = readToml(path.join(options.home, 'config', 'app.toml'));

  const rpc: Endpoint = options.operator?.rpc ??
    firstOf([flags.get('rpc.laddr'), 'flag --rpc.laddr'], [text(configToml, 'rpc', 'laddr'), 'config/config.toml [rpc] laddr']) ?? {
      address: defaultRpcAddress,
      source: 'default',
    };
  const grpc: Endpoint = options.operator?.grpc ??
    firstOf([flags.get('grpc.address'), 'flag --grpc.address'], [text(appToml, 'grpc', 'address'), 'config/app.toml [grpc] address']) ?? {
      address: defaultGrpcAddress,
      source: 'default',
    };
  // An operator who names a gRPC address means it to be asked, whatever the node's files say.
  const enable = options.operator?.grpc
    ? undefined
    : firstOf([flags.get('grpc.enable'), 'flag --grpc.enable'], [text(appToml, 'grpc', 'enable'), 'config/app.toml [grpc] enable']);
  const enabled = enable === undefined || enable.address.trim().toLowerCase() !== 'false';
  return {
    rpc: { address: dialRpc(rpc.address), source: rpc.source },
    grpc: enabled ? { address: dialGrpc(grpc.address), source: grpc.source, enabled } : { address: dialGrpc(grpc.address), source: enable.source, enabled },
  };
}

/**
 * The operator's own choice of addresses, from the loaded settings. DAEMON_GRPC_ADDRESS counts when it
 * was set in the environment or the JSON file, or in cosmovisor's config.toml with a value other than
 * the default: `chainvisor init` (like `cosmovisor init`) writes `daemon_grpc_address = 'localhost:9090'`
 * into that file whatever the node does, and it must not hide the node's own app.toml. Without
 * `sources` (a Config built by a test), a value other than the default counts.
 */
export function operatorEndpoints(loaded: Pick<LoadedConfig, 'config'> & Partial<Omit<LoadedConfig, 'config'>>): { grpc?: Endpoint; rpc?: Endpoint } {
  const { config, sources } = loaded;
  const label = (key: 'grpcAddress' | 'rpcAddress'): string => {
    const source = sources?.[key];
    if (source === 'file') return `${settings[key].env.toLowerCase()} in ${loaded.configFile}`;
    if (source === 'cosmovisor-config') return `${settings[key].env.toLowerCase()} in ${loaded.cosmovisorConfigFile}`;
    return settings[key].env;
  };
  const grpcSource = sources?.grpcAddress;
  const grpcChosen =
    grpcSource === undefined
      ? config.grpcAddress !== defaultGrpcAddress
      : grpcSource === 'env' || grpcSource === 'file' || (grpcSource === 'cosmovisor-config' && config.grpcAddress !== defaultGrpcAddress);
  return {
    ...(grpcChosen ? { grpc: { address: config.grpcAddress, source: label('grpcAddress') } } : {}),
    ...(config.rpcAddress === '' ? {} : { rpc: { address: config.rpcAddress, source: label('rpcAddress') } }),
  };
}

/** The addresses for a command with no node arguments (`config`, `prepare-upgrade`, `rehearse`, `add-upgrade`). */
export function addressesFor(loaded: Pick<LoadedConfig, 'config'> & Partial<Omit<LoadedConfig, 'config'>>, args?: readonly string[]): ChainAddresses {
  const config: Config = loaded.config;
  return resolveChainAddresses({ home: config.home, operator: operatorEndpoints(loaded), ...(args === undefined ? {} : { args }) });
}

/** `--name value` and `--name=value` as pflag reads them (the last one wins; `--` ends the flags); `--grpc.enable` alone is true. */
function nodeFlags(args: readonly string[]): Map<string, string> {
  const found = new Map<string, string>();
  const wanted = new Set(['rpc.laddr', 'grpc.address', 'grpc.enable']);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') break;
    const match = /^--([^=]+)(?:=(.*))?$/s.exec(arg);
    if (match === null || !wanted.has(match[1] as string)) continue;
    const name = match[1] as string;
    if (match[2] !== undefined) found.set(name, match[2]);
    else if (name === 'grpc.enable') found.set(name, 'true');
    else if (i + 1 < args.length) found.set(name, args[++i] as string);
  }
  return found;
}

function firstOf(...candidates: Array<[string | undefined, string]>): Endpoint | undefined {
  for (const [value, source] of candidates) if (value !== undefined && value.trim() !== '') return { address: value.trim(), source };
  return undefined;
}

type Table = Record<string, unknown>;

/** A node file's table; a missing or broken file is no settings (the node itself would refuse a broken one). */
function readToml(file: string): Table | undefined {
  const read = readBoundedSync(file, 4 * 1024 * 1024);
  if (read.status !== 'ok') return undefined;
  try {
    return parse(read.text);
  } catch {
    return undefined;
  }
}

function text(doc: Table | undefined, section: string, key: string): string | undefined {
  const table = doc?.[section];
  if (table === null || typeof table !== 'object') return undefined;
  const value = (table as Table)[key];
  return typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number' ? String(value) : undefined;
}

/** A listen host to dial: all interfaces becomes loopback. */
function dialHost(host: string): string {
  if (host === '' || host === '0.0.0.0') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

function dialGrpc(address: string): string {
  const hostPort = grpcHostPort(address);
  return hostPort === undefined ? address : `${dialHost(hostPort.host)}:${hostPort.port}`;
}

function dialRpc(address: string): string {
  const endpoint = rpcEndpoint(address);
  if (endpoint === undefined) return address;
  return endpoint.kind === 'unix' ? `unix://${endpoint.path}` : `tcp://${dialHost(endpoint.host)}:${endpoint.port}`;
}
