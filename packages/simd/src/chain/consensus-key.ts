/**
 * The validator's ed25519 consensus key: the public key recorded in genesis (`init` makes a new key
 * per home, CometBFT's priv_validator_key.json) and its address, the first 20 bytes of the key's
 * sha256 in upper-case hex, as CometBFT derives it. A genesis written before the key was recorded
 * keeps the fixed key every home then had.
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
