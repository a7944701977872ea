/**
 * The scratch home's `config/`: the live one copied, then made a node that can reach no one and that no
 * one can reach — every listener on a loopback port of its own, no seeds, no persistent or unconditional
 * peers, no address book, peer exchange off, no outbound or inbound peers, no state sync, no remote signer
 * (`priv_validator_laddr`), no halt height — with a fresh validator key and node key (./keys.ts) and the
 * file paths made relative to the scratch home (a live config naming an absolute key or data path
 * would otherwise make the scratch use the live one). Works on a real node's `config.toml`/`app.toml`/
 * `client.toml` and on a home whose `config.toml` holds only a moniker.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import { parse, stringify } from 'smol-toml';

import { nodeConfigOf, readNodeToml } from '../chain/index.js';
import { ChainvisorError, isErrno } from '../shared/errors/index.js';
import { copyRegular, readBoundedBytes } from '../shared/fsread/index.js';
import type { ScratchKeys } from './keys.js';
import type { ScratchPorts } from './ports.js';

/** The most read of one file of the live `config/` (config.toml, app.toml, …: a few KiB each). */
const maxConfigFileBytes = 16 * 1024 * 1024;

/** Files of the live `config/` the scratch never gets. */
const notCopied = new Set(['priv_validator_key.json', 'node_key.json', 'addrbook.json', 'addresses.json']);

type Table = Record<string, unknown>;

const loopback = (port: number, scheme = 'tcp://') => `${scheme}127.0.0.1:${port}`;

function section(doc: Table, name: string): Table {
  const existing = doc[name];
  if (existing !== null && typeof existing === 'object' && !Array.isArray(existing)) return existing as Table;
  const made: Table = {};
  doc[name] = made;
  return made;
}

/** CometBFT's config.toml, rewritten for the scratch. */
export function scratchConfigToml(text: string, ports: ScratchPorts): string {
  const doc = parse(text) as Table;
  Object.assign(doc, {
    proxy_app: loopback(ports.proxyApp),
    db_dir: 'data',
    genesis_file: 'config/genesis.json',
    priv_validator_key_file: 'config/priv_validator_key.json',
    priv_validator_state_file: 'data/priv_validator_state.json',
    priv_validator_laddr: '',
    node_key_file: 'config/node_key.json',
  });
  Object.assign(section(doc, 'rpc'), { laddr: loopback(ports.rpc), grpc_laddr: '', pprof_laddr: '', unsafe: false });
  Object.assign(section(doc, 'p2p'), {
    laddr: loopback(ports.p2p),
    external_address: '',
    seeds: '',
    persistent_peers: '',
    unconditional_peer_ids: '',
    pex: false,
    seed_mode: false,
    addr_book_file: 'config/addrbook.json',
    max_num_inbound_peers: 0,
    max_num_outbound_peers: 0,
  });
  Object.assign(section(doc, 'statesync'), { enable: false, rpc_servers: '' });
  Object.assign(section(doc, 'consensus'), { wal_file: 'data/cs.wal/wal' });
  Object.assign(section(doc, 'instrumentation'), { prometheus: false });
  if (doc.grpc !== undefined) {
    // CometBFT v1's own gRPC, and its privileged service.
    const grpc = Object.assign(section(doc, 'grpc'), { laddr: '' });
    if (grpc.privileged !== undefined) Object.assign(section(grpc, 'privileged'), { laddr: '' });
  }
  // An indexer writing into the live node's database server.
  const txIndex = doc.tx_index as Table | undefined;
  if (txIndex?.indexer === 'psql') Object.assign(section(doc, 'tx_index'), { indexer: 'kv', 'psql-conn': '' });
  return stringify(doc);
}

/** The SDK's app.toml, rewritten for the scratch. */
export function scratchAppToml(text: string, ports: ScratchPorts): string {
  const doc = parse(text) as Table;
  Object.assign(doc, { 'halt-height': 0, 'halt-time': 0 });
  Object.assign(section(doc, 'api'), { address: loopback(ports.api) });
  Object.assign(section(doc, 'grpc'), { address: `127.0.0.1:${ports.grpc}` });
  if (doc['grpc-web'] !== undefined) Object.assign(section(doc, 'grpc-web'), { enable: false });
  if (doc.rosetta !== undefined) Object.assign(section(doc, 'rosetta'), { enable: false });
  if (doc['state-sync'] !== undefined) Object.assign(section(doc, 'state-sync'), { 'snapshot-interval': 0 });
  // EVM chains' JSON-RPC would bind the live node's ports; telemetry sinks would report to the live
  // monitoring; streaming would write into the live node's consumers.
  if (doc['json-rpc'] !== undefined)
    Object.assign(section(doc, 'json-rpc'), { enable: false, address: loopback(0, ''), 'ws-address': loopback(0, ''), 'metrics-address': loopback(0, '') });
  if (doc.telemetry !== undefined) Object.assign(section(doc, 'telemetry'), { enabled: false, 'statsd-addr': '', 'datadog-hostname': '' });
  const streaming = doc.streaming as Table | undefined;
  if (streaming?.abci !== undefined) Object.assign(section(section(doc, 'streaming'), 'abci'), { keys: [], plugin: '' });
  const store = doc.store as Table | undefined;
  if (Array.isArray(store?.streamers)) Object.assign(section(doc, 'store'), { streamers: [] });
  return stringify(doc);
}

/** client.toml: the node the CLI talks to is the scratch's. */
function scratchClientToml(text: string, ports: ScratchPorts, chainId: string): string {
  const doc = parse(text) as Table;
  Object.assign(doc, { node: loopback(ports.rpc), 'chain-id': chainId });
  return stringify(doc);
}

export interface ScratchConfigOptions {
  liveConfigDir: string;
  /** The live genesis file (config.toml's `genesis_file`, usually `config/genesis.json`). */
  liveGenesis: string;
  scratchHome: string;
  ports: ScratchPorts;
  keys: ScratchKeys;
  chainId: string;
}

export async function writeScratchConfig(options: ScratchConfigOptions): Promise<void> {
  const dir = path.join(options.scratchHome, 'config');
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  for (const entry of await fs.readdir(options.liveConfigDir, { withFileTypes: true })) {
    // genesis.json is the live genesis, copied below whatever its name in the live home.
    if (notCopied.has(entry.name) || entry.name === 'genesis.json' || !(entry.isFile() || entry.isSymbolicLink())) continue;
    const src = path.join(options.liveConfigDir, entry.name);
    const dst = path.join(dir, entry.name);
    try {
      const stat = await fs.stat(src);
      const read = await readBoundedBytes(src, maxConfigFileBytes);
      // Not a regular file (a FIFO, a link to a device), gone, unreadable, or larger than any config file: not the scratch's.
      if (read.status !== 'ok') continue;
      const text = read.bytes;
      // A key under a name of the operator's choosing (priv_validator_key_file, a signer's files): never copied.
      if (text.includes('"priv_key"') || text.includes('"priv_validator_key"')) continue;
      const rewritten =
        entry.name === 'config.toml'
          ? scratchConfigToml(text.toString('utf8'), options.ports)
          : entry.name === 'app.toml'
            ? scratchAppToml(text.toString('utf8'), options.ports)
            : entry.name === 'client.toml'
              ? scratchClientToml(text.toString('utf8'), options.ports, options.chainId)
              : text;
      await fs.writeFile(dst, rewritten, { mode: stat.mode & 0o777 });
    } catch (error) {
      if (!isErrno(error, 'ENOENT')) throw error;
    }
  }
  const genesis = await copyRegular(options.liveGenesis, path.join(dir, 'genesis.json'), { mode: 0o644 });
  if (genesis.status !== 'ok') {
    throw new ChainvisorError(
      'CHAINVISOR_REHEARSAL_UNAVAILABLE',
      `cannot copy the genesis file ${options.liveGenesis}: ${genesis.status === 'missing' ? 'there is no such file' : genesis.reason}`,
    );
  }
  await fs.writeFile(path.join(dir, 'priv_validator_key.json'), options.keys.validatorKeyJson, { mode: 0o600 });
  await fs.writeFile(path.join(dir, 'node_key.json'), options.keys.nodeKeyJson, { mode: 0o600 });
  await fs.writeFile(path.join(options.scratchHome, 'data', 'priv_validator_state.json'), options.keys.signStateJson, { mode: 0o600 });
}

/** The live genesis file's path, config.toml's `genesis_file` (relative to the home) as the sign guard reads it; a config.toml that cannot be read stops the rehearsal. */
export async function liveGenesisPath(home: string): Promise<string> {
  const read = await readNodeToml(home, 'config.toml');
  if (read.status === 'refused') throw new ChainvisorError('CHAINVISOR_REHEARSAL_UNAVAILABLE', `cannot read ${read.file}: ${read.reason}`);
  if (read.status === 'malformed') {
    throw new ChainvisorError('CHAINVISOR_REHEARSAL_UNAVAILABLE', `cannot parse ${read.file}: ${(read.error as Error).message}`, {
      hint: "fix the node's config.toml (the node cannot start on it either), then rehearse again",
    });
  }
  return nodeConfigOf(home, read).genesisFile;
}
