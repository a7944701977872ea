/**
 * The validator's ed25519 consensus key: the public key recorded in genesis (`init` makes a new key
 * per home, CometBFT's priv_validator_key.json) and its address, the first 20 bytes of the key's
 * sha256 in upper-case hex, as CometBFT derives it. A genesis written before the key was recorded
 * keeps the fixed key every home then had. A home whose own key is another is a full node.
 */
import { hexUpper, sha256 } from '../util/bytes.js';
import type { Genesis } from './genesis.js';

export interface ConsensusKey {
  pubKey: Buffer;
  /** The proposer address of every block. */
  address: string;
}

const legacyPubKey = sha256('simd/consensus/validator');

export function consensusAddress(pubKey: Buffer): string {
  return hexUpper(sha256(pubKey).subarray(0, 20));
}

export function consensusKey(genesis: Genesis): ConsensusKey {
  const recorded = genesis.app_state.staking.validators[0]?.consensus_pubkey;
  const pubKey = recorded === undefined ? legacyPubKey : Buffer.from(recorded, 'base64');
  return { pubKey, address: consensusAddress(pubKey) };
}

/** What the node reports as its own validator (CometBFT's `status` validator_info). */
export interface HomeValidator {
  /** The home's key is not the genesis validator's (`init --sim-full-node`): it signs nothing. */
  fullNode: boolean;
  pubKey: Buffer;
  address: string;
}

/**
 * The home's consensus key against genesis. A key other than the validator genesis records makes a full
 * node: the process still makes the blocks (it simulates the chain's one validator) but signs no vote
 * with its key, and reports that key with no voting power, as CometBFT does for a key outside the set.
 * No key file, or a genesis that records no key (older homes): the node is the validator, as before.
 */
export function homeValidator(genesis: Genesis, homeKey: Buffer | undefined): HomeValidator {
  const own = consensusKey(genesis);
  const recorded = genesis.app_state.staking.validators[0]?.consensus_pubkey !== undefined;
  if (homeKey === undefined || !recorded || homeKey.equals(own.pubKey)) return { fullNode: false, ...own };
  return { fullNode: true, pubKey: homeKey, address: consensusAddress(homeKey) };
}
