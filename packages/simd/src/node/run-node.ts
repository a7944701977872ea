/**
 * `<bin> start`: opens the store, binds the RPC server and the gRPC and REST servers that are on
 * (listen-config.ts: flags, then config.toml/app.toml), writes the addresses file,
 * then produces blocks until a signal (exit 0) or a halt. A halt for an upgrade, an early binary, a
 * downgrade or a failed handler exits 2 (a Go node panics) — or, with `--halt-mode stay`, leaves the
 * node up, serving queries without producing blocks, until it is signalled (then exit 0), as real
 * Cosmos nodes do. `--halt-height` is an orderly stop: exit 0, or stay up in stay mode.
 */
import path from 'node:path';

import { App } from '../chain/app.js';
import type { BlockRecord } from '../chain/block.js';
import { homeValidator } from '../chain/consensus-key.js';
import { readGenesis } from '../chain/genesis.js';
import { appVersionOf } from '../chain/node-info.js';
import { type PeerKey, selfPower, validatorSet } from '../chain/validator-set.js';
import { bindGrpc, closeGrpc, createGrpcServer } from '../server/grpc.js';
import { closeServer, formatHostPort, listen, parseListenAddress } from '../server/http.js';
import { createQueryService, type NodeState } from '../server/query-service.js';
import { createRestServer } from '../server/rest.js';
import { createRpcServer } from '../server/rpc/index.js';
import { openDatabase } from '../store/db.js';
import type { PruningOptions } from '../store/pruning.js';
import type { ChainHalt } from '../upgrade/halt.js';
import type { SimLogger } from '../util/log.js';
import type { SimVersion } from '../versions.js';
import { removeAddresses, writeAddresses } from './addresses.js';
import { Consensus, roundDuration } from './consensus.js';
import { Mempool } from './mempool.js';
import { readNodeConfig, readValidatorPubKey } from './node-config.js';
import { produceBlocks } from './producer.js';
import { FilePV } from './sign-state.js';
import { TxCache, txInCache } from './tx-cache.js';

export type HaltMode = 'exit' | 'stay';

export interface NodeOptions {
  home: string;
  name: string;
  version: SimVersion;
  blockTimeMs: number;
  /** `--sim-block-time-jitter`: each interval is the block time times 1 ± up to this fraction, uniformly (0: none). */
  blockTimeJitter?: number;
  /** `tcp://host:port`. */
  rpcLaddr: string;
  /** `host:port`; undefined: gRPC off (`--grpc.enable=false`, app.toml `[grpc] enable = false`), nothing listens. */
  grpcAddress: string | undefined;
  /** `tcp://host:port`; undefined: REST off. */
  apiAddress: string | undefined;
  haltMode: HaltMode;
  skipHeights: readonly number[];
  /** 0 = none. */
  haltHeight: number;
  /** Which past states are kept for queries at a height (`--pruning`). */
  pruning: PruningOptions;
  /** The simulated network (issue #26): `--sim-peers-power`, `--sim-peers-back-after` (ms), `--sim-not-signing`, `--sim-peer-key` (#32). */
  network: NetworkOptions;
  log: SimLogger;
}

export interface NetworkOptions {
  /** Total power of the 10 simulated peers; 0: this validator alone. */
  peersPower: bigint;
  /** At the upgrade height this process runs, the peers come back over this long from its start; 0: they never leave. */
  peersBackAfterMs: number;
  /** This node's validator never votes. */
  notSigning: boolean;
  /** `--sim-peer-key` with its `--sim-peer-key-from`/`-until` window: the first peer signs with another validator's key. */
  peerKey?: PeerKey | undefined;
}

export const nodeExitCode = { ok: 0, halted: 2 } as const;

export async function runNode(options: NodeOptions): Promise<number> {
  const { home, log, version } = options;
  const rpcListen = parseListenAddress(options.rpcLaddr, '--rpc.laddr');
  const apiListen = options.apiAddress === undefined ? undefined : parseListenAddress(options.apiAddress, '--api.address');
  const grpcListen = options.grpcAddress === undefined ? undefined : parseListenAddress(options.grpcAddress, '--grpc.address');
  const genesis = await readGenesis(home);
  await removeAddresses(home);

  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    log.info(`received ${signal}, shutting down`, { module: 'server' });
    controller.abort();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  const db = await openDatabase(path.join(home, 'data'), { pruning: options.pruning });
  const servers: Array<() => Promise<void>> = [];
  try {
    const app = await App.open({
      db,
      version,
      genesis,
      dataDir: path.join(home, 'data'),
      log,
      skipHeights: new Set(options.skipHeights),
      haltHeight: options.haltHeight,
    });
    const set = validatorSet(genesis, options.network.peersPower, options.network.peerKey);
    // CometBFT loads (or makes) the validator's state file at start; every vote is signed through it.
    const signer = await FilePV.load(home, app.chainId);
    const own = homeValidator(genesis, await readValidatorPubKey(home));
    if (own.fullNode)
      log.info("this home's validator key is not in the validator set: a full node, it signs no vote", { module: 'consensus', address: own.address });
    const consensus = new Consensus({
      signer: own.fullNode ? undefined : signer,
      set,
      signing: !options.network.notSigning,
      peersBackAfterMs: options.network.peersBackAfterMs,
      roundMs: roundDuration(options.blockTimeMs),
      log,
    });
    // The first process at an upgrade height (the new binary) finds the peers gone: they stop at the halt too.
    if (await app.upgradesAtNextHeight()) consensus.peersAbsentAt(app.nextHeight);
    let halted: ChainHalt | undefined;
    const state = (): NodeState => ({
      version: version.name,
      chain_id: app.chainId,
      block_time_ms: options.blockTimeMs,
      halt_mode: options.haltMode,
      halted: halted === undefined ? null : { kind: halted.kind, height: halted.height, message: halted.message },
    });
    let rpcUrl = '';
    const { moniker, nodeId } = await readNodeConfig(home, { name: options.name, chainId: app.chainId });
    const appVersionAtStart = await appVersionOf(app.reader);
    const identity = { chainId: app.chainId, name: options.name, moniker, nodeId, version: version.name, rpcAddress: () => rpcUrl, appVersionAtStart };
    const queries = createQueryService({
      reader: () => app.reader,
      node: state,
      heights: () => ({ latest: app.lastHeight, earliest: db.earliestHeight() }),
      readerAt: (height) => db.readerAt(height),
      identity,
      genesis,
      validatorSet: set,
    });
    const mempool = new Mempool();
    const cache = new TxCache();
    const rpc = createRpcServer({
      app,
      queries,
      name: options.name,
      moniker,
      nodeId,
      appVersionAtStart,
      genesis,
      validatorSet: set,
      validatorInfo: { address: own.address, pubKey: own.pubKey, power: own.fullNode ? 0n : selfPower(genesis) },
      roundState: () => consensus.roundState(),
      unconfirmed: () => mempool.pending(),
      rpcAddress: () => rpcUrl,
      broadcast: async (tx) => {
        if (halted !== undefined || controller.signal.aborted) {
          const why = halted?.message ?? 'the node is shutting down';
          return { check: { code: 1, codespace: 'sim', log: `the node does not produce blocks any more: ${why}` } };
        }
        if (!cache.push(tx)) throw new Error(txInCache);
        const check = await app.checkTx(tx);
        if (check.code !== 0) cache.remove(tx);
        return check.code === 0 ? { check, committed: mempool.add(tx) } : { check };
      },
    });
    const rpcServer = rpc.http;
    const restServer = createRestServer(queries);
    const grpcServer = createGrpcServer(queries);
    servers.push(
      () => rpc.closeSockets(),
      () => closeServer(rpcServer),
      () => closeServer(restServer),
      () => closeGrpc(grpcServer),
    );

    rpcUrl = `tcp://${formatHostPort(rpcListen.host, await listen(rpcServer, rpcListen, '--rpc.laddr'))}`;
    // A server that is off is never bound: its address is empty in addresses.json, "off" in the log.
    const apiUrl = apiListen === undefined ? '' : `tcp://${formatHostPort(apiListen.host, await listen(restServer, apiListen, '--api.address'))}`;
    const grpcAddr =
      grpcListen === undefined ? '' : formatHostPort(grpcListen.host, await bindGrpc(grpcServer, formatHostPort(grpcListen.host, grpcListen.port)));
    log.info('starting node', {
      module: 'server',
      version: version.name,
      chain_id: app.chainId,
      height: app.lastHeight,
      pruning: options.pruning.strategy,
      rpc: rpcUrl,
      grpc: grpcAddr || 'off',
      api: apiUrl || 'off',
    });
    // Written after the log line: whoever sees the file can rely on the line being out.
    await writeAddresses(home, { rpc: rpcUrl, grpc: grpcAddr, api: apiUrl, pid: process.pid, version: version.name });

    const onCommit = (block: BlockRecord) => {
      cache.update(block);
      return rpc.publish(block);
    };
    halted = await produceBlocks({
      app,
      mempool,
      blockTimeMs: options.blockTimeMs,
      blockTimeJitter: options.blockTimeJitter ?? 0,
      consensus,
      signal: controller.signal,
      onCommit,
    });
    if (halted === undefined) return nodeExitCode.ok;
    if (halted.kind === 'halt-height') log.info(`halting node: ${halted.message}`, { module: 'server', last_height: app.lastHeight });
    if (options.haltMode === 'stay' && !controller.signal.aborted) {
      log.info('block production stopped; the node keeps serving queries until it receives SIGTERM or SIGINT', {
        module: 'server',
        height: app.lastHeight,
      });
      await new Promise((resolve) => controller.signal.addEventListener('abort', resolve, { once: true }));
      return nodeExitCode.ok;
    }
    return halted.kind === 'halt-height' ? nodeExitCode.ok : nodeExitCode.halted;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    for (const close of servers) await close();
    await db.close();
    await removeAddresses(home);
  }
}
