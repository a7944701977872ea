/**
 * The node's own files, read in one place: `config/config.toml`, `config/app.toml` and
 * `config/client.toml` under its home (TOML of a few KiB, read whole up to 4 MiB), the listen
 * addresses its start flags give, and the top-level `chain_id` of the genesis file config.toml names
 * (`genesis_file`), streamed and left at the chain id (a genesis can be gigabytes: shared/fsread/genesis.ts).
 * So the sign guard, the rehearsal, the alerts and the metrics name one chain id for one home. What a
 * missing or broken file means stays the caller's: each read says which it was.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import { parse } from 'smol-toml';

import { ChainvisorError } from '../shared/errors/index.js';
import { type BoundedRead, type NotRead, readBounded, readBoundedSync, readGenesisFacts } from '../shared/fsread/index.js';

export type NodeFileName = 'config.toml' | 'app.toml' | 'client.toml';

type Table = Record<string, unknown>;

/** One of the node's TOML files: its table, or why there is none (`malformed` carries the parser's error). */
export type NodeToml = { file: string } & ({ status: 'ok'; table: Table } | { status: 'malformed'; error: unknown } | NotRead);

const maxNodeTomlBytes = 4 * 1024 * 1024;

export function readNodeTomlSync(home: string, name: NodeFileName): NodeToml {
  const file = path.join(home, 'config', name);
  return parsed(file, readBoundedSync(file, maxNodeTomlBytes));
}

export async function readNodeToml(home: string, name: NodeFileName): Promise<NodeToml> {
  const file = path.join(home, 'config', name);
  return parsed(file, await readBounded(file, maxNodeTomlBytes));
}

function parsed(file: string, read: BoundedRead): NodeToml {
  if (read.status !== 'ok') return { ...read, file };
  try {
    return { status: 'ok', file, table: parse(read.text) };
  } catch (error) {
    return { status: 'malformed', file, error };
  }
}

/**
 * A setting of a node file, top-level or in `section`: a string, number or boolean as text, trimmed;
 * undefined when absent or blank, or when the file was not read (the node itself refuses a broken one).
 */
export function nodeSetting(read: NodeToml, key: string, section?: string): string | undefined {
  if (read.status !== 'ok') return undefined;
  const table = section === undefined ? read.table : read.table[section];
  if (table === null || typeof table !== 'object') return undefined;
  const value = (table as Table)[key];
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return undefined;
  const text = String(value).trim();
  return text === '' ? undefined : text;
}

/** What chainvisor takes from config.toml, its paths resolved against the home as CometBFT does; the defaults where it says nothing. */
export interface NodeConfig {
  moniker: string | undefined;
  /** `genesis_file`, else config/genesis.json. */
  genesisFile: string;
  /** `priv_validator_key_file`, else config/priv_validator_key.json. */
  keyFile: string;
  /** `priv_validator_state_file`, else `priv_validator_state.json` in the data folder. */
  stateFile: string;
  /** `priv_validator_laddr`: a remote signer (TMKMS, Horcrux); empty when none. */
  remoteSigner: string;
}

export function nodeConfigOf(home: string, read: NodeToml, dataDir = path.join(home, 'data')): NodeConfig {
  const stateRel = nodeSetting(read, 'priv_validator_state_file');
  return {
    moniker: nodeSetting(read, 'moniker'),
    genesisFile: path.resolve(home, nodeSetting(read, 'genesis_file') ?? 'config/genesis.json'),
    keyFile: path.resolve(home, nodeSetting(read, 'priv_validator_key_file') ?? 'config/priv_validator_key.json'),
    stateFile:
      stateRel === undefined || stateRel === 'data/priv_validator_state.json' ? path.join(dataDir, 'priv_validator_state.json') : path.resolve(home, stateRel),
    remoteSigner: nodeSetting(read, 'priv_validator_laddr') ?? '',
  };
}

export interface Endpoint {
  /** What to dial: `host:port` for gRPC; `tcp://host:port` or `unix:///path` for the RPC. */
  address: string;
  /** Where it came from, for `chainvisor config` and log lines: `default`, `flag --rpc.laddr`, `config/config.toml [rpc] laddr` … */
  source: string;
}

/** Where the node says it listens: its start flags over config.toml and app.toml; undefined where neither says. */
export interface NodeListens {
  rpc: Endpoint | undefined;
  grpc: Endpoint | undefined;
  /** `--grpc.enable` or app.toml's `[grpc] enable`, as written (`address` holds `true` or `false`). */
  grpcEnable: Endpoint | undefined;
}

export function readNodeListens(home: string, args: readonly string[]): NodeListens {
  const flags = nodeFlags(args);
  const configToml = readNodeTomlSync(home, 'config.toml');
  const appToml = readNodeTomlSync(home, 'app.toml');
  return {
    rpc: firstOf([flags.get('rpc.laddr'), 'flag --rpc.laddr'], [nodeSetting(configToml, 'laddr', 'rpc'), 'config/config.toml [rpc] laddr']),
    grpc: firstOf([flags.get('grpc.address'), 'flag --grpc.address'], [nodeSetting(appToml, 'address', 'grpc'), 'config/app.toml [grpc] address']),
    grpcEnable: firstOf([flags.get('grpc.enable'), 'flag --grpc.enable'], [nodeSetting(appToml, 'enable', 'grpc'), 'config/app.toml [grpc] enable']),
  };
}

/** The node's `--home` (`--home <dir>` or `--home=<dir>`, the last one wins), as written; undefined without one. */
export function nodeHomeFlag(args: readonly string[]): string | undefined {
  const home = nodeFlags(args, ['home']).get('home');
  return home === undefined || home.trim() === '' ? undefined : home;
}

/** `--name value` and `--name=value` as pflag reads them (the last one wins; `--` ends the flags); `--grpc.enable` alone is true. */
function nodeFlags(args: readonly string[], names = ['rpc.laddr', 'grpc.address', 'grpc.enable']): Map<string, string> {
  const found = new Map<string, string>();
  const wanted = new Set(names);
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

/**
 * The chain id from the genesis file's top-level `chain_id`. A genesis can be gigabytes with other
 * `chain_id`s inside it (IBC clients): it is scanned as a stream, knowing the nesting depth, and left
 * as soon as the top-level one is found (CometBFT and the SDK write it near the start). `unknown` when
 * there is no genesis file or no chain id in it: the guard then keeps one record for that. Anything
 * else at its path (a FIFO, a link to /dev/zero) is refused at once, never read (84): the node could
 * not start on it either.
 */
export async function readChainId(genesisFile: string, signal?: AbortSignal): Promise<string> {
  const read = await readGenesisFacts(genesisFile, { chainIdOnly: true, ...(signal ? { signal } : {}) });
  if (read.status === 'missing') return 'unknown';
  if (read.status === 'refused') {
    throw new ChainvisorError('CHAINVISOR_GENESIS_UNREADABLE', `cannot read the chain id from the genesis file ${genesisFile}: ${read.reason}`);
  }
  return read.facts.chainId ?? 'unknown';
}

/**
 * readChainId, read again only when the genesis file changes: a genesis of gigabytes whose chain_id
 * comes after app_state is scanned once per run, never at each restart.
 */
export function cachedChainId(): (genesisFile: string, signal?: AbortSignal) => Promise<string> {
  let chain: { key: string; id: string } | undefined;
  return async (genesisFile, signal) => {
    const stat = await fs.stat(genesisFile).catch(() => undefined);
    const key = `${genesisFile}:${stat?.size}:${stat?.mtimeMs}`;
    if (chain?.key !== key) chain = { key, id: await readChainId(genesisFile, signal) };
    return chain.id;
  };
}

/** Who the node is, for the alerts and the metrics' node info: each undefined when its files do not say. */
export interface NodeNames {
  /** The sign guard's chain id (the genesis file config.toml names), else client.toml's `chain-id`. */
  chainId: string | undefined;
  /** config.toml's `moniker`. */
  moniker: string | undefined;
}

/** Never throws: a file that cannot be read, or a scan stopped by `signal`, only costs its detail. */
export async function readNodeNames(home: string, signal?: AbortSignal): Promise<NodeNames> {
  const [configToml, clientToml] = await Promise.all([readNodeToml(home, 'config.toml'), readNodeToml(home, 'client.toml')]);
  const { genesisFile, moniker } = nodeConfigOf(home, configToml);
  const fromGenesis = await readChainId(genesisFile, signal).catch(() => 'unknown');
  return { chainId: fromGenesis !== 'unknown' && fromGenesis.trim() !== '' ? fromGenesis : nodeSetting(clientToml, 'chain-id'), moniker };
}
