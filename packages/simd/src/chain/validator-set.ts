/**
 * The validator set the node reports and votes with (issue #26): this node's validator, with its
 * genesis power, and the simulated peers of `start --sim-peers-power N` — 10 validators sharing N
 * equally, whose keys are derived from the chain id and their index, so every binary started on the
 * home sees the same set. Sorted as CometBFT sorts a set: voting power descending, then address.
 *
 * `--sim-peer-key <priv_validator_key.json>` (issue #32) gives the first peer another validator's key:
 * the network then carries that validator's signatures, as it does when a second machine runs a key
 * (a "twin"), within the heights its window names.
 */
import { sha256 } from '../util/bytes.js';
import { SimError } from '../util/errors.js';
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
  /** A peer signing with a key given by `--sim-peer-key`: it votes only at the heights of its window. */
  window?: SigningWindow;
}

/** Heights a peer votes at: from `from` to `until`, both included (no end when undefined). */
export interface SigningWindow {
  from: number;
  until: number | undefined;
}

/** The key of `--sim-peer-key` and the heights it signs. */
export interface PeerKey {
  pubKey: Buffer;
  window: SigningWindow;
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

/**
 * The set with `peersPower` spread over 10 peers (the first ones take the remainder); 0: this validator
 * alone. With `peerKey`, the first peer signs with that key, within its window.
 */
export function validatorSet(genesis: Genesis, peersPower: bigint, peerKey?: PeerKey): ValidatorSet {
  const own = consensusKey(genesis);
  const all: SetValidator[] = [{ address: own.address, pubKey: own.pubKey, power: selfPower(genesis), self: true }];
  if (peersPower > 0n) {
    const base = peersPower / BigInt(simPeerCount);
    const extra = Number(peersPower % BigInt(simPeerCount));
    for (let i = 0; i < simPeerCount; i++) all.push(peer(genesis.chain_id, i, base + (i < extra ? 1n : 0n)));
    const first = all[1] as SetValidator;
    if (peerKey !== undefined) {
      const address = consensusAddress(peerKey.pubKey);
      if (address === own.address) throw new SimError('SIM_PEER_KEY_INVALID', `--sim-peer-key is this node's own validator key (${address})`);
      all[1] = { ...first, pubKey: peerKey.pubKey, address, window: peerKey.window };
    }
  }
  all.sort((a, b) => (a.power === b.power ? a.address.localeCompare(b.address) : a.power > b.power ? -1 : 1));
  return {
    validators: all,
    totalPower: all.reduce((sum, v) => sum + v.power, 0n),
    selfIndex: all.findIndex((v) => v.self),
  };
}

/** Whether validator `v` votes at `height` (only a `--sim-peer-key` peer has a window). */
export function signsAt(v: SetValidator, height: number): boolean {
  return v.window === undefined || (height >= v.window.from && (v.window.until === undefined || height <= v.window.until));
}

/** More than two thirds of the set's power: what a block needs to commit. */
export function hasQuorum(set: ValidatorSet, power: bigint): boolean {
  return power * 3n > set.totalPower * 2n;
}

/** A validator's precommit signature over a block (the chain is simulated, the shape is real: 64 bytes). */
export function precommitSignature(blockHash: string, address: string): string {
  return Buffer.concat([sha256('simd/precommit', blockHash, address), sha256('simd/precommit/2', blockHash, address)]).toString('base64');
}
