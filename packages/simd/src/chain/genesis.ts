/**
 * `<home>/config/genesis.json`: chain id, accounts, the validator (and the other validators of
 * `--sim-validators`) and the gov parameters (deposit and voting periods, auto-vote, v1beta1 only). InitChain turns it into state and stores every module's consensus
 * version of the binary that starts the chain.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { genesisKeyNames, keyAddress, setAccount, setValidator } from '../core/accounts.js';
import { govStorePrefix, setParams } from '../gov/state.js';
import type { GovParams } from '../gov/types.js';
import { type KVStore, prefixed } from '../store/kv.js';
import { mountStore } from '../store/stores.js';
import { setModuleVersions } from '../upgrade/keeper.js';
import { storePrefix as upgradeStorePrefix } from '../upgrade/keys.js';
import { sha256 } from '../util/bytes.js';
import { parseCoins } from '../util/coins.js';
import { parseDuration } from '../util/duration.js';
import { isErrno, SimError } from '../util/errors.js';
import type { SimVersion } from '../versions.js';

export interface Genesis {
  genesis_time: string;
  chain_id: string;
  initial_height: string;
  app_state: {
    auth: { accounts: Array<{ name: string; address: string }> };
    staking: {
      validators: Array<{
        name: string;
        /** The validator's account (its operator address's bytes with the account prefix). */
        address: string;
        power: string;
        /** Base64 ed25519 consensus key; absent in older homes. */
        consensus_pubkey?: string;
        /** Set by in-place-testnet: the operator address it was given. */
        operator_address?: string;
      }>;
    };
    gov: { params: GovParams };
    upgrade: Record<string, never>;
  };
}

export interface GenesisOptions {
  /** Default `sim-1`. */
  chainId?: string;
  /** Go duration; default `10s`. */
  votingPeriod?: string;
  /** Go duration; default `10s`. */
  depositPeriod?: string;
  /** Default `10000000stake`. */
  minDeposit?: string;
  /** Validators vote yes on every proposal as soon as voting starts; default false. */
  autoVote?: boolean;
  /** The validator's ed25519 consensus public key (from priv_validator_key.json). */
  consensusPubKey?: Buffer;
  /** Other validators (keyring names other than `validator`) with their power: they vote in gov, they sign no block. */
  simValidators?: ReadonlyArray<{ name: string; power: string }>;
  /** Serve gov v1beta1 only; default false. */
  v1beta1Only?: boolean;
}

/** A simulated validator's consensus key: derived from the chain id and its name, the same in every home. */
export function simValidatorPubKey(chainId: string, name: string): Buffer {
  return sha256(`simd/validator/${chainId}/${name}`);
}

export function defaultGenesis(options: GenesisOptions = {}): Genesis {
  const votingPeriod = options.votingPeriod ?? '10s';
  const depositPeriod = options.depositPeriod ?? '10s';
  parseDuration(votingPeriod, 'voting period');
  parseDuration(depositPeriod, 'deposit period');
  const chainId = options.chainId ?? 'sim-1';
  const others = (options.simValidators ?? []).map(({ name, power }) => ({
    name,
    address: keyAddress(name),
    power,
    consensus_pubkey: simValidatorPubKey(chainId, name).toString('base64'),
  }));
  return {
    genesis_time: new Date().toISOString(),
    chain_id: chainId,
    initial_height: '1',
    app_state: {
      auth: { accounts: genesisKeyNames.map((name) => ({ name, address: keyAddress(name) })) },
      staking: {
        validators: [
          {
            name: 'validator',
            address: keyAddress('validator'),
            power: '1000000',
            ...(options.consensusPubKey === undefined ? {} : { consensus_pubkey: options.consensusPubKey.toString('base64') }),
          },
          ...others,
        ],
      },
      gov: {
        params: {
          min_deposit: parseCoins(options.minDeposit ?? '10000000stake'),
          max_deposit_period: depositPeriod,
          voting_period: votingPeriod,
          quorum: '0.334',
          threshold: '0.5',
          veto_threshold: '0.334',
          auto_vote: options.autoVote ?? false,
          ...(options.v1beta1Only === true ? { v1beta1_only: true } : {}),
        },
      },
      upgrade: {},
    },
  };
}

export function genesisPath(home: string): string {
  return path.join(home, 'config', 'genesis.json');
}

export async function writeGenesis(home: string, genesis: Genesis, overwrite = false): Promise<string> {
  const file = genesisPath(home);
  await mkdir(path.dirname(file), { recursive: true });
  await mkdir(path.join(home, 'data'), { recursive: true });
  try {
    await writeFile(file, `${JSON.stringify(genesis, null, 2)}\n`, { flag: overwrite ? 'w' : 'wx' });
  } catch (error) {
    if (!isErrno(error, 'EEXIST')) throw error;
    throw new SimError('SIM_GENESIS_EXISTS', `genesis.json file already exists: ${file}`, {
      hint: 'pass --overwrite to replace it (the chain data in <home>/data is not removed)',
    });
  }
  return file;
}

export async function readGenesis(home: string): Promise<Genesis> {
  const file = genesisPath(home);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (!isErrno(error, 'ENOENT')) throw error;
    throw new SimError('SIM_NO_GENESIS', `no genesis file at ${file}`, { hint: 'run `<binary> init --home <dir>` first' });
  }
  try {
    const genesis = JSON.parse(text) as Genesis;
    if (typeof genesis.chain_id !== 'string' || genesis.app_state?.gov?.params === undefined) throw new Error('missing chain_id or gov params');
    return genesis;
  } catch (error) {
    throw new SimError('SIM_GENESIS_INVALID', `${file} is not a valid genesis file`, { cause: error });
  }
}

/** InitChain: the genesis state, written into the first block's batch. */
export function initChain(state: KVStore, genesis: Genesis, version: SimVersion): void {
  for (const { name, address } of genesis.app_state.auth.accounts) setAccount(state, address, name);
  for (const { address, power } of genesis.app_state.staking.validators) setValidator(state, address, Number(power));
  setParams(prefixed(state, govStorePrefix), genesis.app_state.gov.params);
  setModuleVersions(prefixed(state, upgradeStorePrefix), version.modules);
  for (const module of Object.keys(version.modules)) mountStore(state, module, 0);
}
