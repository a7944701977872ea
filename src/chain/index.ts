/**
 * Reading the chain from the node it runs: the scheduled upgrade plan and the latest height, over the
 * node's own gRPC endpoint (DAEMON_GRPC_ADDRESS). Used to stage binaries before the halt, to refuse a
 * manual upgrade height already passed, and for the status page. Read-only: the node is never disturbed.
 */
export { type ChainClient, type ChainClientOptions, createChainClient, type ScheduledPlan } from './client.js';
export { ChainUnavailableError } from './errors.js';
