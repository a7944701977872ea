/**
 * Transaction methods (CometBFT rpc/core/tx.go, mempool.go): `tx`, `tx_search`, `check_tx`,
 * `broadcast_tx_async|sync|commit`, `unconfirmed_txs`, `num_unconfirmed_txs`. Transactions are
 * indexed by hash and searched with the event query language; proofs are not produced.
 */
import { type BlockRecord, getBlock, type TxResult } from '../../chain/block.js';
import { txHash } from '../../chain/tx.js';
import { allTxs, findTx, type TxLocation } from '../../chain/tx-index.js';
import { method, type RpcBackend, type RpcMethod } from './backend.js';
import { orderParam, pageOf, type Params } from './params.js';
import { type Condition, flattenEvents, matches, parseQuery, rangeOf } from './query.js';
import { checkTxResult, execTxResult } from './shapes.js';

/** The composite keys a transaction is matched on: its events plus `tm.event`, `tx.hash`, `tx.height`. */
export function txEventMap(result: TxResult, height: string): Record<string, string[]> {
  return { ...flattenEvents(result.events), 'tm.event': ['Tx'], 'tx.hash': [result.hash], 'tx.height': [height] };
}

function resultTx(block: BlockRecord, index: number): unknown {
  const result = block.results[index] as TxResult;
  return { hash: result.hash, height: block.header.height, index, tx_result: execTxResult(result), tx: block.txs[index] };
}

/** Where the transactions a query can match may be: by hash, by a narrow height range, or all of them. */
async function candidates(backend: RpcBackend, conditions: readonly Condition[]): Promise<TxLocation[]> {
  const reader = backend.app.reader;
  const byHash = conditions.find((c) => c.key === 'tx.hash' && c.op === '=' && typeof c.value === 'string');
  if (byHash !== undefined) {
    const found = /^([0-9a-f]{2})+$/i.test(byHash.value as string) ? await findTx(reader, Buffer.from(byHash.value as string, 'hex')) : undefined;
    return found === undefined ? [] : [found];
  }
  const [low, high] = rangeOf(conditions, 'tx.height', 1, backend.app.lastHeight);
  if (high - low > 1000) return (await allTxs(reader)).filter((l) => l.height >= low && l.height <= high);
  const found: TxLocation[] = [];
  for (let height = low; height <= high; height++) {
    const block = await getBlock(reader, height);
    block?.results.forEach((_r, index) => found.push({ height, index }));
  }
  return found;
}

function txParam(params: Params): Buffer {
  return params.bytes('tx', 'base64') ?? Buffer.alloc(0);
}

export const txMethods: Record<string, RpcMethod> = {
  tx: method(['hash', 'prove'], async (params, backend) => {
    const hash = params.bytes('hash', 'base64') ?? Buffer.alloc(0);
    const found = await findTx(backend.app.reader, hash);
    const block = found === undefined ? undefined : await getBlock(backend.app.reader, found.height);
    if (found === undefined || block === undefined) throw new Error(`tx (${hash.toString('hex').toUpperCase()}) not found`);
    return resultTx(block, found.index);
  }),

  tx_search: method(['query', 'prove', 'page', 'per_page', 'order_by'], async (params, backend) => {
    const query = params.string('query') ?? '';
    if (query.length > 512) throw new Error('maximum query length exceeded');
    const conditions = parseQuery(query);
    const order = orderParam(params, 'asc');
    const blocks = new Map<number, BlockRecord | undefined>();
    const hits: Array<{ block: BlockRecord; index: number }> = [];
    for (const { height, index } of await candidates(backend, conditions)) {
      if (!blocks.has(height)) blocks.set(height, await getBlock(backend.app.reader, height));
      const block = blocks.get(height);
      const result = block?.results[index];
      if (block !== undefined && result !== undefined && matches(conditions, txEventMap(result, block.header.height))) hits.push({ block, index });
    }
    const sign = order === 'asc' ? 1 : -1;
    hits.sort((a, b) => sign * (Number(a.block.header.height) - Number(b.block.header.height) || a.index - b.index));
    const { skip, size } = pageOf(params, hits.length);
    return { txs: hits.slice(skip, skip + size).map((h) => resultTx(h.block, h.index)), total_count: String(hits.length) };
  }),

  check_tx: method(['tx'], async (params, backend) => checkTxResult(await backend.app.checkTx(txParam(params)))),

  broadcast_tx_async: method(['tx'], async (params, backend) => {
    const tx = txParam(params);
    const { committed } = await backend.broadcast(tx);
    committed?.catch(() => undefined);
    return { code: 0, data: '', log: '', codespace: '', hash: txHash(tx) };
  }),

  broadcast_tx_sync: method(['tx'], async (params, backend) => {
    const tx = txParam(params);
    const { check, committed } = await backend.broadcast(tx);
    committed?.catch(() => undefined);
    return { code: check.code, data: '', log: check.log, codespace: check.codespace, hash: txHash(tx) };
  }),

  broadcast_tx_commit: method(['tx'], async (params, backend) => {
    const tx = txParam(params);
    const { check, committed } = await backend.broadcast(tx).catch((error: unknown) => {
      throw new Error(`error on broadcastTxCommit: ${error instanceof Error ? error.message : String(error)}`);
    });
    if (committed === undefined) return { check_tx: checkTxResult(check), tx_result: execTxResult(), hash: txHash(tx), height: '0' };
    const { result, height } = await committed;
    return { check_tx: checkTxResult(check), tx_result: execTxResult(result), hash: result.hash, height: String(height) };
  }),

  unconfirmed_txs: method(['limit'], async (params, backend) => {
    const all = backend.unconfirmed();
    const { size } = pageOf(params, all.length, 'limit');
    return {
      n_txs: String(size),
      total: String(all.length),
      total_bytes: String(all.reduce((n, tx) => n + tx.length, 0)),
      txs: all.slice(0, size).map((tx) => tx.toString('base64')),
    };
  }),

  num_unconfirmed_txs: method([], async (_params, backend) => {
    const all = backend.unconfirmed();
    return { n_txs: String(all.length), total: String(all.length), total_bytes: String(all.reduce((n, tx) => n + tx.length, 0)), txs: null };
  }),
};
