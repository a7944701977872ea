/**
 * The node's info methods: `health`, `status`, `net_info`, `genesis`, `genesis_chunked`,
 * `validators`, `consensus_params` (CometBFT rpc/core status.go, net.go, consensus.go). No peers to
 * connect to; the validator set (this validator and the simulated peers) and consensus parameters never change.
 */
import type { App } from '../../chain/app.js';
import { getBlock } from '../../chain/block.js';
import type { Genesis } from '../../chain/genesis.js';
import { nodeInfo } from '../../chain/node-info.js';
import { prefixed } from '../../store/kv.js';
import { getProtocolVersion } from '../../upgrade/keeper.js';
import { storePrefix as upgradeStorePrefix } from '../../upgrade/keys.js';
import { method, type RpcMethod } from './backend.js';
import { heightParam, pageOf } from './params.js';
import { consensusParams, pubKeyJson, validatorJson } from './shapes.js';

export async function appVersion(app: App): Promise<number> {
  return getProtocolVersion(prefixed(app.reader, upgradeStorePrefix));
}

const zeroTime = '1970-01-01T00:00:00Z';

/** Go's RFC 3339 rendering of a time: trailing zeros of the fraction dropped. */
function goTime(text: string): string {
  return text.replace(/(\.\d*?)0+Z$/, '$1Z').replace(/\.Z$/, 'Z');
}

/** CometBFT's genesis document for the node's genesis file (validators come from the app state, as with gentxs). */
export function genesisDoc(genesis: Genesis): unknown {
  return {
    genesis_time: goTime(genesis.genesis_time),
    chain_id: genesis.chain_id,
    initial_height: String(genesis.initial_height || '1'),
    consensus_params: consensusParams(0),
    app_hash: '',
    app_state: genesis.app_state,
  };
}

/** The genesis document's JSON cut in 16 MB chunks, base64 each (rpc/core/env.go InitGenesisChunks). */
function genesisChunks(genesis: Genesis): string[] {
  const data = Buffer.from(JSON.stringify(genesisDoc(genesis)));
  const size = 16 * 1024 * 1024;
  const chunks: string[] = [];
  for (let i = 0; i < data.length; i += size) chunks.push(data.subarray(i, i + size).toString('base64'));
  return chunks;
}

export const infoMethods: Record<string, RpcMethod> = {
  health: method([], async () => ({})),

  status: method([], async (_params, backend) => {
    const { app } = backend;
    const latest = app.lastBlock;
    const earliest = latest === undefined ? undefined : await getBlock(app.reader, 1);
    return {
      node_info: nodeInfo({
        chainId: app.chainId,
        moniker: backend.moniker,
        nodeId: backend.nodeId,
        rpcAddress: backend.rpcAddress,
        appVersionAtStart: backend.appVersionAtStart,
      }),
      sync_info: {
        latest_block_hash: latest?.block_id.hash ?? '',
        latest_app_hash: latest?.header.app_hash ?? '',
        latest_block_height: String(app.lastHeight),
        latest_block_time: latest?.header.time ?? zeroTime,
        earliest_block_hash: earliest?.block_id.hash ?? '',
        earliest_app_hash: earliest?.header.app_hash ?? '',
        earliest_block_height: earliest === undefined ? '0' : earliest.header.height,
        earliest_block_time: earliest?.header.time ?? zeroTime,
        catching_up: false,
      },
      validator_info: {
        address: backend.validatorInfo.address,
        pub_key: pubKeyJson(backend.validatorInfo.pubKey),
        voting_power: backend.validatorInfo.power.toString(),
      },
    };
  }),

  // CometBFT lists `Listener(@<p2p.external_address>)`, empty by default.
  net_info: method([], async () => ({
    listening: true,
    listeners: ['Listener(@)'],
    n_peers: '0',
    peers: [],
  })),

  genesis: method([], async (_params, backend) => {
    if (genesisChunks(backend.genesis).length > 1) throw new Error('genesis response is large, please use the genesis_chunked API instead');
    return { genesis: genesisDoc(backend.genesis) };
  }),

  genesis_chunked: method(['chunk'], async (params, backend) => {
    const chunks = genesisChunks(backend.genesis);
    const id = params.int('chunk') ?? 0;
    if (id < 0 || id > chunks.length - 1) throw new Error(`there are ${chunks.length - 1} chunks, ${id} is invalid`);
    return { chunk: String(id), total: String(chunks.length), data: chunks[id] };
  }),

  // The latest validator set known is the next block's (CometBFT's latestUncommittedHeight).
  validators: method(['height', 'page', 'per_page'], async (params, backend) => {
    const height = heightParam(params, backend.app.lastHeight + 1);
    const all = backend.validatorSet.validators.map(validatorJson);
    const { skip, size } = pageOf(params, all.length);
    const validators = all.slice(skip, skip + size);
    return { block_height: String(height), validators, count: String(validators.length), total: String(all.length) };
  }),

  consensus_params: method(['height'], async (params, backend) => {
    const height = heightParam(params, backend.app.lastHeight + 1);
    return { block_height: String(height), consensus_params: consensusParams(await appVersion(backend.app)) };
  }),
};
