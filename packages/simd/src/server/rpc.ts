/**
 * The CometBFT-style RPC server (`--rpc.laddr`): `status`, `abci_info`, `abci_query`, `block`,
 * `blockchain`, `broadcast_tx_sync`, `broadcast_tx_commit`, `health`, both as URI GETs
 * (`/block?height=5`) and JSON-RPC POSTs, with CometBFT's envelopes and field names.
 */
import http from 'node:http';
import type { App, CheckResult } from '../chain/app.js';
import { proposerAddress } from '../chain/app.js';
import { blockMeta, cometBlock, getBlock, type BlockRecord, type TxResult } from '../chain/block.js';
import { txHash } from '../chain/tx.js';
import { abciQuery } from './abci-query.js';
import { sha256 } from '../util/bytes.js';
import { getProtocolVersion } from '../upgrade/keeper.js';
import { storePrefix as upgradeStorePrefix } from '../upgrade/keys.js';
import { prefixed } from '../store/kv.js';
import { readBody, sendJson } from './http.js';
import type { QueryService } from './query-service.js';

export interface Broadcast {
  check: CheckResult;
  /** Resolves when the block including the transaction is committed (absent when check failed). */
  committed?: Promise<{ height: number; result: TxResult }>;
}

export interface RpcBackend {
  app: App;
  queries: QueryService;
  name: string;
  rpcAddress(): string;
  broadcast(tx: Buffer): Promise<Broadcast>;
}

class RpcError extends Error {
  constructor(readonly code: number, message: string, readonly data: string) {
    super(message);
  }
}

const internal = (data: string) => new RpcError(-32603, 'Internal error', data);
const invalidParams = (data: string) => new RpcError(-32602, 'Invalid params', data);

type Params = Record<string, unknown>;
type Method = (params: Params, backend: RpcBackend, encoding: 'uri' | 'json') => Promise<unknown>;

function str(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = String(value);
  return text.length >= 2 && text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1) : text;
}

function intParam(params: Params, name: string): number | undefined {
  const text = str(params[name]);
  if (text === undefined || text === '' || text === '0') return undefined;
  if (!/^\d+$/.test(text)) throw invalidParams(`${name} must be a positive integer, got ${JSON.stringify(text)}`);
  return Number(text);
}

function bytesParam(params: Params, name: string, encoding: 'uri' | 'json', json: 'hex' | 'base64'): Buffer {
  const text = str(params[name]) ?? '';
  if (/^0x/i.test(text)) return Buffer.from(text.slice(2), 'hex');
  return Buffer.from(text, encoding === 'uri' && json === 'base64' ? 'base64' : json);
}

async function blockOrLatest(backend: RpcBackend, params: Params): Promise<BlockRecord> {
  const latest = backend.app.lastHeight;
  const height = intParam(params, 'height') ?? latest;
  if (height > latest) throw internal(`height ${height} must be less than or equal to the current blockchain height ${latest}`);
  const block = await getBlock(backend.app.reader, height);
  if (block === undefined) throw internal(`could not find a block at height ${height}`);
  return block;
}

const methods: Record<string, Method> = {
  health: async () => ({}),

  async status(_params, backend) {
    const { app } = backend;
    const latest = app.lastBlock;
    const earliest = latest === undefined ? undefined : await getBlock(app.reader, 1);
    const protocol = await getProtocolVersion(prefixed(app.reader, upgradeStorePrefix));
    return {
      node_info: {
        protocol_version: { p2p: '8', block: '11', app: String(protocol) },
        id: sha256('simd/node', app.chainId).toString('hex').slice(0, 40),
        listen_addr: 'tcp://0.0.0.0:26656',
        network: app.chainId,
        version: '0.38.12',
        channels: '40202122233038606100',
        moniker: backend.name,
        other: { tx_index: 'on', rpc_address: backend.rpcAddress() },
      },
      sync_info: {
        latest_block_hash: latest?.block_id.hash ?? '',
        latest_app_hash: latest?.header.app_hash ?? '',
        latest_block_height: String(app.lastHeight),
        latest_block_time: latest?.header.time ?? '1970-01-01T00:00:00Z',
        earliest_block_hash: earliest?.block_id.hash ?? '',
        earliest_app_hash: earliest?.header.app_hash ?? '',
        earliest_block_height: earliest === undefined ? '0' : earliest.header.height,
        earliest_block_time: earliest?.header.time ?? '1970-01-01T00:00:00Z',
        catching_up: false,
      },
      validator_info: {
        address: proposerAddress,
        pub_key: { type: 'tendermint/PubKeyEd25519', value: sha256('simd/pubkey').toString('base64') },
        voting_power: '1000000',
      },
    };
  },

  async abci_info(_params, backend) {
    const { app } = backend;
    return {
      response: {
        data: 'SimApp',
        version: app.version.name,
        app_version: String(await getProtocolVersion(prefixed(app.reader, upgradeStorePrefix))),
        last_block_height: String(app.lastHeight),
        last_block_app_hash: Buffer.from(app.lastBlock?.header.app_hash ?? '', 'hex').toString('base64'),
      },
    };
  },

  async abci_query(params, backend, encoding) {
    const path = str(params.path) ?? '';
    const data = bytesParam(params, 'data', encoding, 'hex');
    const asked = str(params.height) ?? '';
    if (asked !== '' && !/^-?\d+$/.test(asked)) throw invalidParams(`height must be an integer, got ${JSON.stringify(asked)}`);
    const prove = params.prove === true || str(params.prove) === 'true';
    // baseapp's Query (abci-query.ts): a refused path or height answers height 0; a failing query, the height it ran at.
    const answer = await abciQuery(backend.queries, { path, data, height: Number(asked || '0'), prove }, backend.app.version.name);
    const bytes = (value: Uint8Array | undefined) => (value === undefined ? null : Buffer.from(value).toString('base64'));
    const { code, log, info, index, key, value, height, codespace } = answer;
    return { response: { code, log, info, index: String(index), key: bytes(key), value: bytes(value), proofOps: null, height: String(height), codespace } };
  },

  async block(params, backend) {
    return cometBlock(await blockOrLatest(backend, params));
  },

  async blockchain(params, backend) {
    const latest = backend.app.lastHeight;
    const max = Math.min(intParam(params, 'maxHeight') ?? latest, latest);
    const min = Math.max(intParam(params, 'minHeight') ?? 1, max - 19, 1);
    if (min > max && latest > 0) throw internal(`min height ${min} can't be greater than max height ${max}`);
    const metas = [];
    for (let h = max; h >= min; h--) {
      const block = await getBlock(backend.app.reader, h);
      if (block !== undefined) metas.push(blockMeta(block));
    }
    return { last_height: String(latest), block_metas: metas };
  },

  async broadcast_tx_sync(params, backend, encoding) {
    const tx = bytesParam(params, 'tx', encoding, 'base64');
    const { check, committed } = await backend.broadcast(tx);
    committed?.catch(() => undefined);
    return { code: check.code, data: '', log: check.log, codespace: check.codespace, hash: txHash(tx) };
  },

  async broadcast_tx_commit(params, backend, encoding) {
    const tx = bytesParam(params, 'tx', encoding, 'base64');
    const { check, committed } = await backend.broadcast(tx);
    const checkTx = { code: check.code, data: null, log: check.log, codespace: check.codespace };
    if (committed === undefined) {
      return { check_tx: checkTx, tx_result: { code: 0, log: '', codespace: '', events: [] }, hash: txHash(tx), height: '0' };
    }
    let outcome;
    try {
      outcome = await committed;
    } catch (error) {
      throw internal(error instanceof Error ? error.message : String(error));
    }
    const { result, height } = outcome;
    return {
      check_tx: checkTx,
      tx_result: { code: result.code, data: null, log: result.log, codespace: result.codespace, events: result.events },
      hash: result.hash,
      height: String(height),
    };
  },
};

export function createRpcServer(backend: RpcBackend): http.Server {
  return http.createServer((req, res) => {
    void (async () => {
      let id: unknown = -1;
      try {
        const url = new URL(req.url ?? '/', 'http://localhost');
        let method: string;
        let params: Params;
        let encoding: 'uri' | 'json';
        if (req.method === 'POST') {
          const body = JSON.parse((await readBody(req)) || '{}') as { id?: unknown; method?: string; params?: Params };
          id = body.id ?? -1;
          method = body.method ?? '';
          params = body.params ?? {};
          encoding = 'json';
        } else {
          method = url.pathname.replace(/^\/+/, '');
          params = Object.fromEntries(url.searchParams);
          encoding = 'uri';
        }
        const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
        if (handler === undefined) throw new RpcError(-32601, 'Method not found', `unknown method ${JSON.stringify(method)}`);
        sendJson(res, 200, { jsonrpc: '2.0', id, result: await handler(params, backend, encoding) });
      } catch (error) {
        const rpc = error instanceof RpcError ? error : internal(error instanceof Error ? error.message : String(error));
        sendJson(res, rpc.code === -32601 ? 404 : 500, { jsonrpc: '2.0', id, error: { code: rpc.code, message: rpc.message, data: rpc.data } });
      }
    })();
  });
}
