/**
 * The scratch node's own identity: a fresh ed25519 validator key and node key, written as CometBFT keeps
 * them (`priv_validator_key.json`, `node_key.json`), a signing state at height 0, and the operator
 * address derived from the validator key (the first 20 bytes of the public key's sha256, bech32 with
 * the chain's `<prefix>valoper`). The live keys are never read: the live validator key signs nothing else.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';

import { bech32 } from '@scure/base';

export interface ScratchKeys {
  /** `config/priv_validator_key.json`. */
  validatorKeyJson: string;
  /** `config/node_key.json`. */
  nodeKeyJson: string;
  /** `data/priv_validator_state.json`: nothing signed yet. */
  signStateJson: string;
  /** The validator's address bytes (CometBFT's consensus address). */
  address: Buffer;
}

/** A new ed25519 key as CometBFT keeps it: the 32-byte seed then the 32-byte public key. */
function newKey(): { key: Buffer; pub: Buffer } {
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  const pub = Buffer.from(jwk.x ?? '', 'base64url');
  return { key: Buffer.concat([Buffer.from(jwk.d ?? '', 'base64url'), pub]), pub };
}

export function newScratchKeys(): ScratchKeys {
  const validator = newKey();
  const address = createHash('sha256').update(validator.pub).digest().subarray(0, 20);
  const validatorKey = {
    address: address.toString('hex').toUpperCase(),
    pub_key: { type: 'tendermint/PubKeyEd25519', value: validator.pub.toString('base64') },
    priv_key: { type: 'tendermint/PrivKeyEd25519', value: validator.key.toString('base64') },
  };
  const nodeKey = { priv_key: { type: 'tendermint/PrivKeyEd25519', value: newKey().key.toString('base64') } };
  return {
    validatorKeyJson: `${JSON.stringify(validatorKey, null, 2)}\n`,
    nodeKeyJson: `${JSON.stringify(nodeKey)}\n`,
    signStateJson: `${JSON.stringify({ height: '0', round: 0, step: 0 }, null, 2)}\n`,
    address,
  };
}

/** `<prefix>valoper1…` for these address bytes. */
export function operatorAddress(prefix: string, address: Buffer): string {
  return bech32.encode(`${prefix}valoper`, bech32.toWords(address));
}
