/**
 * The validator set the node reports and votes with (issue #26): this node's validator, with its
 * genesis power, and the simulated peers of `start --sim-peers-power N` — 10 validators sharing N
 * equally, whose keys are derived from the chain id and their index, so every binary started on the
 * home sees the same set. Sorted as CometBFT sorts a set: voting power descending, then address.
 */
import { sha256 } from '../util/bytes.js';
import { consensusAddress, consensusKey } from './consensus-key.js';
import type { Genesis } from './genesis.js';

export const simPeerCount = 10;

export interface SetValidator {
  /** 40 upper-case hex characters. */
  address: string;
  pubKey: Buffer;
  power: bigint;
  /** This node's own validator (the others are simulated peers). */
  self: boolean;
}

export interface ValidatorSet {
  validators: readonly SetValidator[];
  totalPower: bigint;
  /** Index of this node's validator in `validators`. */
  selfIndex: number;
}

/** The power of this node's validator, as genesis (or in-place-testnet) recorded it. */
export function selfPower(genesis: Genesis): bigint {
  return BigInt(genesis.app_state.staking.validators[0]?.power ?? '1000000');
}

function peer(chainId: string, index: number, power: bigint): SetValidator {
  const pubKey = sha256(`simd/peer/${chainId}/${index}`);
  return { address: consensusAddress(pubKey), pubKey, power, self: false };
}

/** The set with `peersPower` spread over 10 peers (the first ones take the remainder); 0: this validator alone. */
export function validatorSet(genesis: Genesis, peersPower: bigint): ValidatorSet {
  const own = consensusKey(genesis);
  const all: SetValidator[] = [{ address: own.address, pubKey: own.pubKey, power: selfPower(genesis), self: true }];
  if (peersPower > 0n) {
    const base = peersPower / BigInt(simPeerCount);
    const extra = Number(peersPower % BigInt(simPeerCount));
    for (let i = 0; i < simPeerCount; i++) all.push(peer(genesis.chain_id, i, base + (i < extra ? 1n : 0n)));
  }
  all.sort((a, b) => (a.power === b.power ? a.address.localeCompare(b.address) : a.power > b.power ? -1 : 1));
  return {
    validators: all,
    totalPower: all.reduce((sum, v) => sum + v.power, 0n),
    selfIndex: all.findIndex((v) => v.self),
  };
}

/** More than two thirds of the set's power: what a block needs to commit. */
export function hasQuorum(set: ValidatorSet, power: bigint): boolean {
  return power * 3n > set.totalPower * 2n;
}

/** A validator's precommit signature over a block (the chain is simulated, the shape is real: 64 bytes). */
export function precommitSignature(blockHash: string, address: string): string {
  return Buffer.concat([sha256('simd/precommit', blockHash, address), sha256('simd/precommit/2', blockHash, address)]).toString('base64');
}
