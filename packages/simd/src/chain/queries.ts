/**
 * `cosmos.base.tendermint.v1beta1.Service` (GetLatestBlock, GetBlockByHeight, GetSyncing): how Cosmos
 * clients (and a supervisor with DAEMON_GRPC_ADDRESS) read the node's height over gRPC.
 */
import {
  GetBlockByHeightRequest,
  GetBlockByHeightResponse,
  GetLatestBlockResponse,
  GetSyncingResponse,
} from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query.js';
import type { KVReader } from '../store/kv.js';
import { notFound } from '../util/errors.js';
import { toTimestamp } from '../util/time.js';
import type { ProtoHandler } from '../upgrade/queries.js';
import { getBlock, type BlockId, type BlockRecord } from './block.js';
import { getCommitInfo } from './commit.js';

export const tendermintService = 'cosmos.base.tendermint.v1beta1.Service';

const hex = (text: string) => Buffer.from(text, 'hex');
const blockId = (id: BlockId) => ({ hash: hex(id.hash), partSetHeader: { total: id.parts.total, hash: hex(id.parts.hash) } });

function blockProto(block: BlockRecord) {
  const h = block.header;
  const header = {
    version: { block: BigInt(h.version.block), app: BigInt(h.version.app) },
    chainId: h.chain_id,
    height: BigInt(h.height),
    time: toTimestamp(BigInt(block.time_nanos)),
    lastBlockId: blockId(h.last_block_id),
    lastCommitHash: hex(h.last_commit_hash),
    dataHash: hex(h.data_hash),
    validatorsHash: hex(h.validators_hash),
    nextValidatorsHash: hex(h.next_validators_hash),
    consensusHash: hex(h.consensus_hash),
    appHash: hex(h.app_hash),
    lastResultsHash: hex(h.last_results_hash),
    evidenceHash: hex(h.evidence_hash),
  };
  const rest = {
    data: { txs: block.txs.map((tx) => Buffer.from(tx, 'base64')) },
    evidence: { evidence: [] },
    lastCommit: { height: BigInt(Math.max(0, Number(h.height) - 1)), round: 0, blockId: blockId(h.last_block_id), signatures: [] },
  };
  return {
    blockId: blockId(block.block_id),
    block: { header: { ...header, proposerAddress: hex(h.proposer_address) }, ...rest },
    sdkBlock: { header: { ...header, proposerAddress: h.proposer_address }, ...rest },
  };
}

async function blockAt(reader: KVReader, height: number): Promise<BlockRecord> {
  const block = await getBlock(reader, height);
  if (block === undefined) throw notFound(`block at height ${height} not found (latest is ${(await getCommitInfo(reader)).height})`);
  return block;
}

export function tendermintQueries(reader: () => KVReader): Record<string, ProtoHandler> {
  return {
    async GetLatestBlock() {
      const kv = reader();
      const block = await blockAt(kv, (await getCommitInfo(kv)).height);
      return GetLatestBlockResponse.encode(GetLatestBlockResponse.fromPartial(blockProto(block))).finish();
    },
    async GetBlockByHeight(request) {
      const { height } = GetBlockByHeightRequest.decode(request);
      const block = await blockAt(reader(), Number(height));
      return GetBlockByHeightResponse.encode(GetBlockByHeightResponse.fromPartial(blockProto(block))).finish();
    },
    async GetSyncing() {
      return GetSyncingResponse.encode({ syncing: false }).finish();
    },
  };
}
