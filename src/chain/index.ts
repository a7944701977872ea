/**
 * Reading the chain from the node it runs: the scheduled upgrade plan, the latest height and any query
 * of its query router, over the node's gRPC, or its CometBFT RPC when gRPC is off or does not answer
 * (reader.ts), governance made of those queries (governance.ts), at the addresses the
 * node itself listens on (addresses.ts), and the network's view from other nodes' RPCs (network.ts).
 * Every CometBFT RPC goes through one JSON-RPC client (json-rpc.ts), its answers checked against
 * answers.ts. The node's own files are read by node-files.ts; upgrade-info.json by upgrade-info.ts. Read-only.
 */
export {
  addressesFor,
  type ChainAddresses,
  defaultGrpcAddress,
  defaultRpcAddress,
  operatorEndpoints,
  resolveChainAddresses,
  type ResolveOptions,
} from './addresses.js';
export {
  type CommitSigners,
  type ConsensusReader,
  createConsensusReader,
  type NodeValidator,
  parseVoteShare,
  type RoundState,
  type VoteShare,
} from './consensus.js';
export { ChainAnswerRefusedError, ChainQueryError, ChainUnavailableError } from './errors.js';
export { type ProposedUpgrade } from './gov-proposals.js';
export { createGovReader, type GovParams, type GovReader, type GovVersion, type UpgradeProposals } from './governance.js';
export { type ChainClient, createGrpcClient, type GrpcClientOptions, type ScheduledPlan } from './grpc-client.js';
export { createNetworkReader, type NetworkCommit, type NetworkReader, NetworkRpcError, type NetworkStatus } from './network.js';
export {
  cachedChainId,
  type Endpoint,
  type NodeConfig,
  nodeConfigOf,
  nodeHomeFlag,
  type NodeNames,
  nodeSetting,
  type NodeToml,
  readChainId,
  readNodeNames,
  readNodeToml,
} from './node-files.js';
export { type ChainReader, type ChainReaderOptions, createChainReader } from './reader.js';
export { createRpcClient, type RpcClientOptions } from './rpc-client.js';
export { skipHeights } from './skip-heights.js';
export { type BlockSubscription, keepSubscribed, newBlockQuery, subscribeNewBlocks, type SubscriptionOptions } from './subscription.js';
export {
  maxUpgradeInfoBytes,
  parseUpgradeInfo,
  type Plan,
  type PlanParse,
  readUpgradeInfo,
  serializePlan,
  upgradeInfoError,
  type UpgradeInfoRead,
} from './upgrade-info.js';
export { type StakingValidator } from './validators.js';
