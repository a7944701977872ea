/**
 * Where the node listens, found as the node itself finds it (Cosmos SDK server/start.go, CometBFT
 * config), highest first: the operator's setting, the node's own start flags, config.toml and
 * app.toml, the SDK's defaults. The node's flags and files are read by ./node-files.ts; this file
 * ranks them and makes them dialable.
 * Why, and the rest of its rules: docs/design/chain.md#chainaddressests.
 */
import { type Config, grpcHostPort, type LoadedConfig, rpcEndpoint, settings } from '../config/index.js';
import { type Endpoint, type NodeListens, readNodeListens } from './node-files.js';

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
  /**
   * Where the node `chainvisor run` started listens, as run published it (the node record): used instead
   * of `args` and the files, which may not say it (addresses given as flags; files edited since).
   */
  running?: ChainAddresses;
}

export const defaultRpcAddress = 'tcp://127.0.0.1:26657';
export const defaultGrpcAddress = settings.grpcAddress.default;

export function resolveChainAddresses(options: ResolveOptions): ChainAddresses {
  const node = options.running === undefined ? readNodeListens(options.home, options.args ?? []) : runningListens(options.running);
  const rpc: Endpoint = options.operator?.rpc ?? node.rpc ?? { address: defaultRpcAddress, source: 'default' };
  const grpc: Endpoint = options.operator?.grpc ?? node.grpc ?? { address: defaultGrpcAddress, source: 'default' };
  // An operator who names a gRPC address means it to be asked, whatever the node's files say.
  const enable = options.operator?.grpc ? undefined : node.grpcEnable;
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

/**
 * The addresses for `run` (the node's arguments) or for a command with none (`config`, `prepare-upgrade`,
 * `rehearse`, `add-upgrade`), which passes where the running node listens when `run` published it.
 */
export function addressesFor(
  loaded: Pick<LoadedConfig, 'config'> & Partial<Omit<LoadedConfig, 'config'>>,
  args?: readonly string[],
  running?: ChainAddresses,
): ChainAddresses {
  const config: Config = loaded.config;
  const node = { ...(args === undefined ? {} : { args }), ...(running === undefined ? {} : { running }) };
  return resolveChainAddresses({ home: config.home, operator: operatorEndpoints(loaded), ...node });
}

/** The running node's published addresses as the node's own word, their sources marked as its. */
function runningListens(running: ChainAddresses): NodeListens {
  const source = (from: string) => `the running node's ${from}`;
  return {
    rpc: { address: running.rpc.address, source: source(running.rpc.source) },
    grpc: { address: running.grpc.address, source: source(running.grpc.source) },
    grpcEnable: running.grpc.enabled ? undefined : { address: 'false', source: source(running.grpc.source) },
  };
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
