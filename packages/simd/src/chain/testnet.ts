/**
 * The in-place testnet (Cosmos SDK v0.50.4+ `testnetify` with an app's `Init…AppForTestnet`): turns
 * the chain in a home into a testnet run by this home's validator key. In the committed state, the
 * validator set becomes one validator (the operator's account, overwhelming power) and, when asked,
 * an upgrade plan is scheduled at the last committed height, so the next block's pre-block finds it
 * due; in genesis.json (where the simulated node keeps its chain id and its validator's consensus
 * key) the chain id becomes the new one and the validator this home's. Nothing is changed unless
 * every check passes; the state is rewritten at its height in one synchronous batch, then genesis.json
 * is replaced atomically.
 */
import path from 'node:path';

import { hasAccount, removeValidators, setAccount, setValidator } from '../core/accounts.js';
import { openDatabase } from '../store/db.js';
import { Overlay, prefixed } from '../store/kv.js';
import type { PruningOptions } from '../store/pruning.js';
import { scheduleUpgrade } from '../upgrade/keeper.js';
import { storePrefix as upgradeStorePrefix } from '../upgrade/keys.js';
import { applyStoreUpgrades } from '../upgrade/store-loader.js';
import type { StoreUpgrades } from '../upgrade/types.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { addressPrefix, bech32Encode, valAddressFromBech32 } from '../util/bech32.js';
import { ChainError, SimError } from '../util/errors.js';
import type { SimLogger } from '../util/log.js';
import { getCommitInfo } from './commit.js';
import { consensusAddress } from './consensus-key.js';
import { genesisPath, readGenesis } from './genesis.js';

/** The power (and tokens) the SDK gives the testnet's validator: 900000000000000. */
export const testnetValidatorPower = 900_000_000_000_000;
/** The name the testnet's validator account gets in genesis and in the account store. */
export const testnetValidatorName = 'testnet-validator';

export interface TestnetOptions {
  home: string;
  newChainId: string;
  /** A validator operator address with the chain's prefix (`cosmosvaloper1…`). */
  operatorAddress: string;
  /** The consensus public key of the home's priv_validator_key.json. */
  consensusPubKey: Buffer;
  /** The upgrade to schedule at the last committed height; undefined or '' = none. */
  triggerUpgrade?: string;
  /**
   * The store upgrades this binary declares for the triggered upgrade: mounted with the rewrite, for
   * the next block (the SDK registers a running daemon's new stores in an in-place testnet).
   */
  storeUpgrades?: StoreUpgrades;
  /** Pruning of the history written with the rewritten state (the node's own). */
  pruning?: PruningOptions;
  log: SimLogger;
}

export interface TestnetResult {
  oldChainId: string;
  /** The last committed height: the state rewritten, and the plan's height when one was scheduled. */
  height: number;
  operatorAccount: string;
  consensusAddress: string;
}

/** The SDK's AppGenesis.ValidateAndComplete checks of a chain id, with its messages. */
export function chainIdProblem(chainId: string): string | undefined {
  if (chainId.trim() === '') return 'genesis doc must include non-empty chain_id';
  if (chainId.length > 50) return `chain_id in genesis doc is too long (max: 50)`;
  return undefined;
}

/** Checks the operator address as the SDK does; throws a SimError with the SDK's message. */
export function operatorAccountOf(operatorAddress: string): string {
  try {
    return bech32Encode(addressPrefix, valAddressFromBech32(operatorAddress));
  } catch (error) {
    throw new SimError('SIM_TESTNET_BAD_OPERATOR', (error as Error).message, {
      hint: `give the new validator's operator address: a bech32 address with the prefix ${addressPrefix}valoper (as \`<binary> keys show <key> --bech val -a\` prints it on a real chain)`,
    });
  }
}

export async function testnetify(options: TestnetOptions): Promise<TestnetResult> {
  const problem = chainIdProblem(options.newChainId);
  if (problem !== undefined) throw new SimError('SIM_TESTNET_BAD_CHAIN_ID', problem, { hint: 'give the testnet a chain id of 1 to 50 characters' });
  const operatorAccount = operatorAccountOf(options.operatorAddress);
  const genesis = await readGenesis(options.home);
  const db = await openDatabase(path.join(options.home, 'data'), { pruning: options.pruning });
  let height: number;
  try {
    ({ height } = await getCommitInfo(db.reader));
    if (height === 0) {
      throw new SimError('SIM_TESTNET_NO_STATE', `the home ${options.home} holds no committed block`, {
        hint: 'in-place-testnet turns an existing chain into a testnet: run it on a copy of a node home that has produced blocks',
      });
    }
    const state = new Overlay(db.reader);
    await removeValidators(state);
    setValidator(state, operatorAccount, testnetValidatorPower);
    if (!(await hasAccount(state, operatorAccount))) setAccount(state, operatorAccount, testnetValidatorName);
    const upgrade = options.triggerUpgrade ?? '';
    if (upgrade !== '') {
      try {
        await scheduleUpgrade(prefixed(state, upgradeStorePrefix), { name: upgrade, height, info: '' }, height);
      } catch (error) {
        if (!(error instanceof ChainError)) throw error;
        throw new SimError('SIM_TESTNET_BAD_UPGRADE', error.message, { hint: 'name an upgrade this chain has not applied yet in --trigger-testnet-upgrade' });
      }
      if (options.storeUpgrades !== undefined) {
        await applyStoreUpgrades(state, { name: upgrade, height: height + 1, info: '' }, options.storeUpgrades, options.log);
      }
    }
    // The state at the last committed height is rewritten in place (its history entries too).
    await db.commit(state.ops(), { height, lastHeight: height });
  } finally {
    await db.close();
  }

  const oldChainId = genesis.chain_id;
  genesis.chain_id = options.newChainId;
  genesis.app_state.staking.validators = [
    {
      name: testnetValidatorName,
      address: operatorAccount,
      operator_address: options.operatorAddress,
      power: String(testnetValidatorPower),
      consensus_pubkey: options.consensusPubKey.toString('base64'),
    },
  ];
  await writeFileAtomic(genesisPath(options.home), `${JSON.stringify(genesis, null, 2)}\n`, 0o644);
  return { oldChainId, height, operatorAccount, consensusAddress: consensusAddress(options.consensusPubKey) };
}
