/**
 * The application: executes blocks (pre-block hook, transactions, gov end-block) on top of the
 * committed state and commits each block in one synchronous batch. State with a lifecycle, hence a class.
 *
 * The genesis state (first start) and the store upgrades of the StoreLoader are staged into the batch
 * of the first block this process executes, so they become durable together with that block or not at all.
 */
import { getSequence, govAddress, hasAccount, setSequence } from '../core/accounts.js';
import { type Event, type MsgContext, type MsgRoute, routeOf } from '../core/msg.js';
import { govEndBlock } from '../gov/end-block.js';
import { legacyGovRoutes } from '../gov/legacy-msgs.js';
import { govRoutes } from '../gov/msgs.js';
import type { Database } from '../store/db.js';
import { Overlay, prefixed } from '../store/kv.js';
import { ChainHalt } from '../upgrade/halt.js';
import { getPlan, getProtocolVersion } from '../upgrade/keeper.js';
import { storePrefix as upgradeStorePrefix } from '../upgrade/keys.js';
import { upgradeRoutes } from '../upgrade/msgs.js';
import { isDue } from '../upgrade/plan.js';
import { preBlock } from '../upgrade/preblock.js';
import { applyStoreUpgrades, pendingStoreUpgrades } from '../upgrade/store-loader.js';
import { readUpgradeInfo, writeUpgradeInfo } from '../upgrade/upgrade-info.js';
import { hexUpper } from '../util/bytes.js';
import { ChainError } from '../util/errors.js';
import type { SimLogger } from '../util/log.js';
import type { SimVersion } from '../versions.js';
import { anteEvents, checkGas, checkSequence, gasUsed, messageEvents, txSigners, validateSignatures } from './ante.js';
import { blockKey, type BlockRecord, endBlockEvents, getBlock, makeBlock, type Precommits, type TxResult } from './block.js';
import { getCommitInfo, nextAppHash, setCommitInfo } from './commit.js';
import { consensusKey } from './consensus-key.js';
import { type Genesis, initChain } from './genesis.js';
import { decodeTx, type Tx, txHash } from './tx.js';
import { indexBlock } from './tx-index.js';

export interface AppOptions {
  db: Database;
  version: SimVersion;
  genesis: Genesis;
  /** `<home>/data`: where upgrade-info.json is written and read. */
  dataDir: string;
  log: SimLogger;
  /** `--unsafe-skip-upgrades`. */
  skipHeights?: ReadonlySet<number>;
  /** `--halt-height`: the last block to commit; 0 = none. */
  haltHeight?: number;
}

export interface CheckResult {
  code: number;
  codespace: string;
  log: string;
  gasWanted?: string;
  gasUsed?: string;
}

export const routes: Readonly<Record<string, MsgRoute>> = { ...upgradeRoutes, ...govRoutes, ...legacyGovRoutes };

export class App {
  readonly version: SimVersion;
  readonly chainId: string;
  private readonly options: AppOptions;
  private readonly skipHeights: ReadonlySet<number>;
  private staged: Overlay | undefined;
  private verified = false;
  private height: number;
  private appHash: Buffer;
  private last: BlockRecord | undefined;
  /** The sequences the mempool's transactions have reached since the last commit (the SDK's check state). */
  private checkSequences = new Map<string, bigint>();

  private constructor(options: AppOptions, staged: Overlay, height: number, appHash: Buffer, last: BlockRecord | undefined) {
    this.options = options;
    this.version = options.version;
    this.chainId = options.genesis.chain_id;
    this.skipHeights = options.skipHeights ?? new Set();
    this.staged = staged;
    this.height = height;
    this.appHash = appHash;
    this.last = last;
  }

  static async open(options: AppOptions): Promise<App> {
    const { db, log } = options;
    const commit = await getCommitInfo(db.reader);
    const staged = new Overlay(db.reader);
    if (commit.height === 0) {
      initChain(staged, options.genesis, options.version);
      log.info('initialised the chain from genesis', { module: 'app', chain_id: options.genesis.chain_id });
    }
    const app = new App(options, staged, commit.height, commit.appHash, await getBlock(db.reader, commit.height));
    const pending = pendingStoreUpgrades({
      upgradeInfo: await readUpgradeInfo(options.dataDir),
      declared: options.version.storeUpgrades,
      lastHeight: app.nextHeight - 1,
      skipHeights: app.skipHeights,
    });
    if (pending !== undefined) await applyStoreUpgrades(staged, pending.plan, pending.upgrades, log);
    return app;
  }

  /** The last committed height (0 before the first block). */
  get lastHeight(): number {
    return this.height;
  }

  get lastBlock(): BlockRecord | undefined {
    return this.last;
  }

  get nextHeight(): number {
    return this.height === 0 ? Math.max(1, Number(this.options.genesis.initial_height) || 1) : this.height + 1;
  }

  /** Reads of the committed state (queries never see a block half-executed). */
  get reader(): Database['reader'] {
    return this.options.db.reader;
  }

  /**
   * Whether the next block runs an upgrade of this binary: a plan due there, not skipped, whose
   * handler the binary has. Read from the committed state, so a binary knows it is the new one at an
   * upgrade height — the first process after the old binary's halt — from the chain alone.
   */
  async upgradesAtNextHeight(): Promise<boolean> {
    const plan = await getPlan(prefixed(this.reader, upgradeStorePrefix));
    const height = this.nextHeight;
    return plan !== undefined && isDue(plan, height) && !this.skipHeights.has(height) && Object.hasOwn(this.version.handlers, plan.name);
  }

  /** Executes and commits the next block; throws ChainHalt (with nothing committed) where a real node panics. */
  async produceBlock(timeNanos: bigint, txs: Buffer[], precommits?: Precommits): Promise<BlockRecord> {
    const { log, haltHeight = 0 } = this.options;
    const height = this.nextHeight;
    if (haltHeight > 0 && height > haltHeight) {
      throw new ChainHalt('halt-height', height - 1, `halt per configuration height ${haltHeight}`);
    }
    const state = this.staged ?? new Overlay(this.reader);
    this.staged = undefined;
    const timeMs = Number(timeNanos / 1_000_000n);
    const upgradeKV = prefixed(state, upgradeStorePrefix);
    // The proposer built the header before PreBlock ran: an upgrade's new version shows from the next header.
    const headerAppVersion = await getProtocolVersion(upgradeKV);

    await preBlock({
      kv: upgradeKV,
      state,
      height,
      log,
      skipHeights: this.skipHeights,
      handlers: this.version.handlers,
      verifyDowngrade: !this.verified,
      writeUpgradeInfo: (plan, at) => writeUpgradeInfo(this.options.dataDir, plan, at),
    });
    this.verified = true;

    const results: TxResult[] = [];
    for (const tx of txs) results.push(await this.deliverTx(state, height, timeMs, tx));
    const endBlock = this.context(state, height, timeMs);
    await govEndBlock(endBlock);

    const block = makeBlock({
      chainId: this.chainId,
      height,
      timeNanos,
      headerAppVersion,
      appVersion: await getProtocolVersion(upgradeKV),
      appHash: this.appHash,
      last: this.last,
      txs,
      results,
      events: endBlockEvents(endBlock.events),
      proposerAddress: consensusKey(this.options.genesis).address,
      precommits,
    });
    const appHash = nextAppHash(this.appHash, state.ops());
    setCommitInfo(state, { height, appHash });
    state.set(blockKey(height), Buffer.from(JSON.stringify(block)));
    indexBlock(state, block);
    await this.options.db.commit(state.ops(), { height, lastHeight: this.height });
    this.height = height;
    this.appHash = appHash;
    this.last = block;
    this.checkSequences.clear();
    log.info('committed state', { module: 'state', height, num_txs: txs.length, app_hash: hexUpper(appHash) });
    return block;
  }

  /** The ante checks and the signers' accounts, before a transaction enters the mempool. */
  async checkTx(bytes: Buffer): Promise<CheckResult> {
    let gas: { gasWanted?: string; gasUsed?: string } = {};
    try {
      const tx = decodeTx(bytes);
      gas = { gasWanted: tx.fee.gasLimit.toString() };
      const signers = txSigners(tx, routes);
      validateSignatures(tx, signers);
      for (const signer of signers) {
        // Module accounts have no keys: only the modules themselves act for them (gov runs passed proposals).
        if (signer === govAddress) throw new ChainError('sdk', 4, `module account ${signer} cannot sign transactions: unauthorized`);
        if (!(await hasAccount(this.reader, signer))) throw new ChainError('sdk', 9, `account ${signer} not found: unknown address`);
      }
      const used = gasUsed(tx, bytes.length);
      gas = { ...gas, gasUsed: used.toString() };
      checkGas(tx, used);
      const next = new Map<string, bigint>();
      for (const [i, signer] of signers.entries()) {
        const expected = this.checkSequences.get(signer) ?? (await getSequence(this.reader, signer));
        checkSequence(expected, tx.signerInfos[i]?.sequence ?? 0n);
        next.set(signer, expected + 1n);
      }
      for (const [signer, sequence] of next) this.checkSequences.set(signer, sequence);
      return { code: 0, codespace: '', log: '', ...gas };
    } catch (error) {
      if (error instanceof ChainError) return { code: error.abciCode, codespace: error.codespace, log: error.message, ...gas };
      throw error;
    }
  }

  private context(state: Overlay, height: number, timeMs: number): MsgContext {
    return { state, height, timeMs, log: this.options.log, events: [], routes };
  }

  /** The ante handler on the block's state: signatures, gas, sequences (incremented even when a message then fails). */
  private async ante(state: Overlay, tx: Tx, size: number): Promise<{ signers: string[]; used: bigint; events: Event[] }> {
    const signers = txSigners(tx, routes);
    validateSignatures(tx, signers);
    const used = gasUsed(tx, size);
    checkGas(tx, used);
    for (const [i, signer] of signers.entries()) {
      const expected = await getSequence(state, signer);
      checkSequence(expected, tx.signerInfos[i]?.sequence ?? 0n);
      setSequence(state, signer, expected + 1n);
    }
    return { signers, used, events: anteEvents(tx, signers) };
  }

  private async deliverTx(state: Overlay, height: number, timeMs: number, bytes: Buffer): Promise<TxResult> {
    const hash = txHash(bytes);
    let gas = { gas_wanted: '0', gas_used: '0' };
    let events: Event[] = [];
    try {
      const tx = decodeTx(bytes);
      gas = { gas_wanted: tx.fee.gasLimit.toString(), gas_used: '0' };
      const anteBranch = state.branch();
      const ante = await this.ante(anteBranch, tx, bytes.length);
      anteBranch.writeTo(state);
      gas = { ...gas, gas_used: ante.used.toString() };
      events = ante.events;
      const branch = state.branch();
      const msgEvents: Event[] = [];
      for (const [index, msg] of tx.body.messages.entries()) {
        const ctx = this.context(branch, height, timeMs);
        const route = routeOf(ctx, msg);
        try {
          if (route === undefined) throw new ChainError('sdk', 12, `unrecognized message type ${msg['@type']}: unknown request`);
          await route.execute(ctx, msg);
        } catch (error) {
          if (!(error instanceof ChainError)) throw error;
          throw new ChainError(error.codespace, error.abciCode, `failed to execute message; message index: ${index}: ${error.message}`);
        }
        msgEvents.push(...messageEvents(msg['@type'], route.signer(msg), index, ctx.events));
      }
      branch.writeTo(state);
      return { hash, code: 0, codespace: '', log: '', events: [...events, ...msgEvents], ...gas };
    } catch (error) {
      const failure =
        error instanceof ChainError
          ? { code: error.abciCode, codespace: error.codespace, log: error.message }
          : { code: 1, codespace: 'undefined', log: error instanceof Error ? error.message : String(error) };
      this.options.log.info('transaction failed', { module: 'txs', hash, code: failure.code, log: failure.log });
      return { hash, ...failure, events, ...gas };
    }
  }
}
