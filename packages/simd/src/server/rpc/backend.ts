/** What the RPC methods work on (the running node), and the shape of a method. */
import type { App, CheckResult } from '../../chain/app.js';
import type { TxResult } from '../../chain/block.js';
import type { Genesis } from '../../chain/genesis.js';
import type { RoundState } from '../../chain/round-state.js';
import type { ValidatorSet } from '../../chain/validator-set.js';
import type { QueryService } from '../query-service.js';
import type { Params } from './params.js';

export interface Broadcast {
  check: CheckResult;
  /** Resolves when the block including the transaction is committed (absent when check failed). */
  committed?: Promise<{ height: number; result: TxResult }>;
}

export interface RpcBackend {
  app: App;
  queries: QueryService;
  name: string;
  /** The moniker and node id the home holds (status `node_info`). */
  moniker: string;
  nodeId: string;
  /** The app version when the node started: `node_info` keeps it until a restart, as CometBFT's. */
  appVersionAtStart: number;
  genesis: Genesis;
  /** The validators the node reports and votes with (this one and the simulated peers). */
  validatorSet: ValidatorSet;
  /** `status` validator_info: the home's key, with the genesis validator's power or 0 on a full node. */
  validatorInfo: { address: string; pubKey: Buffer; power: bigint };
  /** The consensus round state now. */
  roundState(): RoundState;
  rpcAddress(): string;
  broadcast(tx: Buffer): Promise<Broadcast>;
  /** Transactions waiting for the next block, oldest first. */
  unconfirmed(): readonly Buffer[];
}

export interface RpcMethod {
  /** Argument names, in order (JSON-RPC accepts positional params). */
  args: readonly string[];
  run(params: Params, backend: RpcBackend): Promise<unknown>;
}

export const method = (args: readonly string[], run: RpcMethod['run']): RpcMethod => ({ args, run });
