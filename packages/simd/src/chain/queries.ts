/**
 * `cosmos.base.tendermint.v1beta1.Service` (GetNodeInfo, GetLatestBlock, GetBlockByHeight,
 * GetSyncing): how Cosmos clients (and a supervisor with DAEMON_GRPC_ADDRESS) read the node's identity
 * and height over gRPC.
 */
import {
  GetBlockByHeightRequest,
  GetBlockByHeightResponse,
  GetLatestBlockResponse,
  GetNodeInfoResponse,
  GetSyncingResponse,
} from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query.js';

import type { ProtoHandler } from '../core/query.js';
import type { KVReader } from '../store/kv.js';
import { addressPrefix, bech32Encode } from '../util/bech32.js';
import { ChainError, GrpcCode, notFound } from '../util/errors.js';
import { parseNanos, toTimestamp, zeroTimeSeconds } from '../util/time.js';
import { type BlockId, type BlockRecord, getBlock, lastCommit } from './block.js';
import { getCommitInfo } from './commit.js';
import { type NodeIdentity, nodeInfo, versionInfo } from './node-info.js';

export const tendermintService = 'cosmos.base.tendermint.v1beta1.Service';

const hex = (text: string) => Buffer.from(text, 'hex');
const blockId = (id: BlockId) => ({ hash: hex(id.hash), partSetHeader: { total: id.parts.total, hash: hex(id.parts.hash) } });

/** The block's last commit as the SDK converts CometBFT's (the same signatures as RPC `/block`). */
function commitProto(block: BlockRecord) {
  const commit = lastCommit(block);
  return {
    height: BigInt(commit.height),
    round: commit.round,
    blockId: blockId(commit.block_id),
    signatures: commit.signatures.map((sig) => ({
      blockIdFlag: sig.block_id_flag,
      validatorAddress: hex(sig.validator_address),
      // One validator: the vote's time is the block's own header time (see cometCommit); a stored
      // commit (a simulated set) carries each vote's time, Go's zero time for an absent validator.
      timestamp:
        block.last_commit === undefined
          ? toTimestamp(BigInt(block.time_nanos))
          : sig.signature === null
            ? { seconds: zeroTimeSeconds, nanos: 0 }
            : toTimestamp(parseNanos(sig.timestamp)),
      signature: sig.signature === null ? Buffer.alloc(0) : Buffer.from(sig.signature, 'base64'),
    })),
  };
}

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
    lastCommit: commitProto(block),
  };
  return {
    blockId: blockId(block.block_id),
    block: { header: { ...header, proposerAddress: hex(h.proposer_address) }, ...rest },
    // The SDK's own Header (sdk_block) gives the proposer as a consensus address, in bech32.
    sdkBlock: { header: { ...header, proposerAddress: bech32Encode(`${addressPrefix}valcons`, hex(h.proposer_address)) }, ...rest },
  };
}

async function blockAt(reader: KVReader, height: number): Promise<BlockRecord> {
  const block = await getBlock(reader, height);
  if (block === undefined) throw notFound(`block at height ${height} not found (latest is ${(await getCommitInfo(reader)).height})`);
  return block;
}

/** The SDK's checks before it asks CometBFT for a block (client/grpc/cmtservice, CometBFT's getHeight). */
async function checkHeight(reader: KVReader, height: bigint): Promise<void> {
  if (height > BigInt((await getCommitInfo(reader)).height)) {
    throw new ChainError('sdk', 18, 'requested block height is bigger then the chain length', GrpcCode.invalidArgument);
  }
  // CometBFT's error, which the SDK passes on as a plain error: gRPC Unknown.
  if (height <= 0n) throw new ChainError('sdk', 1, `height must be greater than 0, but got ${height}`, 2);
}

function nodeInfoProto(info: Awaited<ReturnType<typeof nodeInfo>>, identity: NodeIdentity) {
  const version = versionInfo(identity);
  return {
    defaultNodeInfo: {
      protocolVersion: {
        p2p: BigInt(info.protocol_version.p2p),
        block: BigInt(info.protocol_version.block),
        app: BigInt(info.protocol_version.app),
      },
      defaultNodeId: info.id,
      listenAddr: info.listen_addr,
      network: info.network,
      version: info.version,
      channels: Buffer.from(info.channels, 'hex'),
      moniker: info.moniker,
      other: { txIndex: info.other.tx_index, rpcAddress: info.other.rpc_address },
    },
    applicationVersion: {
      name: version.name,
      appName: version.app_name,
      version: version.version,
      gitCommit: version.git_commit,
      buildTags: version.build_tags,
      goVersion: version.go_version,
      buildDeps: version.build_deps,
      cosmosSdkVersion: version.cosmos_sdk_version,
    },
  };
}

export function tendermintQueries(reader: () => KVReader, identity: NodeIdentity): Record<string, ProtoHandler> {
  return {
    async GetNodeInfo() {
      const info = nodeInfo(identity);
      return GetNodeInfoResponse.encode(GetNodeInfoResponse.fromPartial(nodeInfoProto(info, identity))).finish();
    },
    async GetLatestBlock() {
      const kv = reader();
      const block = await blockAt(kv, (await getCommitInfo(kv)).height);
      return GetLatestBlockResponse.encode(GetLatestBlockResponse.fromPartial(blockProto(block))).finish();
    },
    async GetBlockByHeight(request) {
      const { height } = GetBlockByHeightRequest.decode(request);
      const kv = reader();
      await checkHeight(kv, height);
      const block = await blockAt(kv, Number(height));
      return GetBlockByHeightResponse.encode(GetBlockByHeightResponse.fromPartial(blockProto(block))).finish();
    },
    async GetSyncing() {
      return GetSyncingResponse.encode({ syncing: false }).finish();
    },
  };
}
