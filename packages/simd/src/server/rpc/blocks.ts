/**
 * Block methods (CometBFT rpc/core/blocks.go): `block`, `block_by_hash`, `header`, `header_by_hash`,
 * `block_results`, `blockchain`, `commit`, `block_search`. The node keeps every block from height 1.
 */
import { appVersionAfter, blockCommit, type BlockId, blockMeta, type BlockRecord, cometBlock, getBlock } from '../../chain/block.js';
import { getCommitInfo } from '../../chain/commit.js';
import { findBlockHeight } from '../../chain/tx-index.js';
import { method, type RpcBackend, type RpcMethod } from './backend.js';
import { heightParam, orderParam, pageOf } from './params.js';
import { flattenEvents, matches, parseQuery, rangeOf } from './query.js';
import { abciEvents, consensusParamUpdates, execTxResult } from './shapes.js';

const emptyBlockId: BlockId = { hash: '', parts: { total: 0, hash: '' } };

export async function loadBlock(backend: RpcBackend, height: number): Promise<BlockRecord> {
  const block = await getBlock(backend.app.reader, height);
  if (block === undefined) throw new Error(`could not find a block at height ${height}`);
  return block;
}

async function blockByHashParam(backend: RpcBackend, hash: Buffer | undefined): Promise<BlockRecord | undefined> {
  const height = hash === undefined ? undefined : await findBlockHeight(backend.app.reader, hash);
  return height === undefined ? undefined : getBlock(backend.app.reader, height);
}

/** The application hash after `block`: the next header's, or the committed one for the latest block. */
export async function appHashAfter(backend: RpcBackend, block: BlockRecord): Promise<Buffer> {
  const next = await getBlock(backend.app.reader, Number(block.header.height) + 1);
  return next === undefined ? (await getCommitInfo(backend.app.reader)).appHash : Buffer.from(next.header.app_hash, 'hex');
}

/** `abci.ResponseFinalizeBlock` of a block (block_results and the NewBlock event). */
export async function finalizeBlockResponse(backend: RpcBackend, block: BlockRecord) {
  return {
    events: abciEvents(block.events ?? []),
    tx_results: block.results.map((r) => execTxResult(r)),
    validator_updates: null,
    consensus_param_updates: consensusParamUpdates(appVersionAfter(block)),
    app_hash: (await appHashAfter(backend, block)).toString('base64'),
  };
}

export const blockMethods: Record<string, RpcMethod> = {
  block: method(['height'], async (params, backend) => cometBlock(await loadBlock(backend, heightParam(params, backend.app.lastHeight)))),

  block_by_hash: method(['hash'], async (params, backend) => {
    const block = await blockByHashParam(backend, params.bytes('hash', 'base64'));
    return block === undefined ? { block_id: emptyBlockId, block: null } : cometBlock(block);
  }),

  header: method(['height'], async (params, backend) => {
    const block = await getBlock(backend.app.reader, heightParam(params, backend.app.lastHeight));
    return { header: block?.header ?? null };
  }),

  header_by_hash: method(['hash'], async (params, backend) => {
    const block = await blockByHashParam(backend, params.bytes('hash', 'hex'));
    return { header: block?.header ?? null };
  }),

  block_results: method(['height'], async (params, backend) => {
    const block = await loadBlock(backend, heightParam(params, backend.app.lastHeight));
    const response = await finalizeBlockResponse(backend, block);
    // The stored FinalizeBlock response decodes empty lists as nil slices, which cmtjson writes as null.
    return {
      height: block.header.height,
      txs_results: response.tx_results.length === 0 ? null : response.tx_results,
      finalize_block_events: response.events.length === 0 ? null : response.events,
      validator_updates: null,
      consensus_param_updates: response.consensus_param_updates,
      app_hash: response.app_hash,
    };
  }),

  // At most 20 metas, highest first (filterMinMax).
  blockchain: method(['minHeight', 'maxHeight'], async (params, backend) => {
    const latest = backend.app.lastHeight;
    let min = params.int('minHeight') ?? 0;
    let max = params.int('maxHeight') ?? 0;
    if (min < 0 || max < 0) throw new Error('heights must be non-negative');
    if (min === 0) min = 1;
    if (max === 0) max = latest;
    max = Math.min(latest, max);
    min = Math.max(1, min, max - 20 + 1);
    if (min > max) throw new Error(`min height ${min} can't be greater than max height ${max}`);
    const metas = [];
    for (let h = max; h >= min; h--) metas.push(blockMeta(await loadBlock(backend, h)));
    return { last_height: String(latest), block_metas: metas };
  }),

  // The latest block's commit is the validator's seen commit (not canonical until the next block holds it).
  commit: method(['height'], async (params, backend) => {
    const block = await loadBlock(backend, heightParam(params, backend.app.lastHeight));
    const next = await getBlock(backend.app.reader, Number(block.header.height) + 1);
    const time = next?.header.time ?? block.header.time;
    return {
      signed_header: { header: block.header, commit: blockCommit(block, time) },
      canonical: next !== undefined,
    };
  }),

  // Matched on `block.height` and the block's FinalizeBlock events.
  block_search: method(['query', 'page', 'per_page', 'order_by'], async (params, backend) => {
    const conditions = parseQuery(params.string('query') ?? '');
    const order = orderParam(params, 'desc');
    const [low, high] = rangeOf(conditions, 'block.height', 1, backend.app.lastHeight);
    const byEvents = conditions.some((c) => c.key !== 'block.height');
    const heights: number[] = [];
    for (let h = low; h <= high; h++) {
      const events = byEvents ? flattenEvents((await getBlock(backend.app.reader, h))?.events ?? []) : {};
      if (matches(conditions, { ...events, 'block.height': [String(h)] })) heights.push(h);
    }
    if (order === 'desc') heights.reverse();
    const { skip, size } = pageOf(params, heights.length);
    const blocks = [];
    for (const h of heights.slice(skip, skip + size)) blocks.push(cometBlock(await loadBlock(backend, h)));
    return { blocks, total_count: String(heights.length) };
  }),
};
