/**
 * What the SDK's ante handler does before a transaction's messages run, as far as the simulated chain
 * has it: the signers are the messages' signers (in order, each once), each needs one signer info and
 * one signature (not verified: the simulated keyring has no key pairs), each signer info carries the
 * account's current sequence, which the transaction then increments. Also the gas the transaction is
 * charged and the `tx` events the SDK v0.50 ante decorators emit.
 */
import { type Event, event, type MsgRoute, routeOf } from '../core/msg.js';
import type { KVReader } from '../store/kv.js';
import { formatCoins } from '../util/coins.js';
import { ChainError } from '../util/errors.js';
import type { Tx } from './tx.js';

/** The transaction's signers: each message's signer, first appearance first (the SDK's GetSigners). */
export function txSigners(tx: Tx, routes: Readonly<Record<string, MsgRoute>>): string[] {
  const signers: string[] = [];
  for (const msg of tx.body.messages) {
    const route = routeOf({ routes }, msg);
    if (route === undefined) throw new ChainError('sdk', 12, `unrecognized message type ${JSON.stringify(msg['@type'])}: unknown request`);
    const signer = route.signer(msg);
    if (!signers.includes(signer)) signers.push(signer);
  }
  return signers;
}

/** The stateless checks of the SDK's Tx.ValidateBasic on signatures and signer infos. */
export function validateSignatures(tx: Tx, signers: readonly string[]): void {
  if (tx.body.messages.length === 0) throw new ChainError('sdk', 18, 'must contain at least one message: invalid request');
  if (tx.signatures.length === 0) throw new ChainError('sdk', 15, 'no signatures supplied');
  if (tx.signatures.length !== tx.signerInfos.length) {
    throw new ChainError('sdk', 4, `wrong number of signers; expected ${tx.signerInfos.length}, got ${tx.signatures.length}: unauthorized`);
  }
  if (tx.signatures.length !== signers.length) {
    throw new ChainError('sdk', 4, `invalid number of signer;  expected: ${signers.length}, got ${tx.signatures.length}: unauthorized`);
  }
}

/** x/auth/ante/sigverify.go: the signer info's sequence must be the account's. */
export function checkSequence(expected: bigint, got: bigint): void {
  if (expected !== got) throw new ChainError('sdk', 32, `account sequence mismatch, expected ${expected}, got ${got}: incorrect account sequence`);
}

export type SequenceOf = (kv: KVReader, address: string) => Promise<bigint>;

/**
 * The gas a transaction uses in the simulation: the SDK's per-byte cost (10) and secp256k1
 * verification cost (1000), plus a fixed amount per message for its store reads and writes.
 */
export function gasUsed(tx: Tx, size: number): bigint {
  return 20_000n + BigInt(size) * 10n + BigInt(tx.signatures.length) * 1000n + BigInt(tx.body.messages.length) * 25_000n;
}

export function checkGas(tx: Tx, used: bigint): void {
  if (used > tx.fee.gasLimit) {
    throw new ChainError('sdk', 11, `out of gas in location: txSize; gasWanted: ${tx.fee.gasLimit}, gasUsed: ${used}: out of gas`);
  }
}

/** The ante decorators' events: `tx{fee, fee_payer}`, then per signer `tx{acc_seq}` and `tx{signature}`. */
export function anteEvents(tx: Tx, signers: readonly string[]): Event[] {
  const events = [event('tx', { fee: formatCoins(tx.fee.amount), fee_payer: signers[0] ?? '' })];
  signers.forEach((signer, i) => {
    events.push(event('tx', { acc_seq: `${signer}/${tx.signerInfos[i]?.sequence ?? 0n}` }));
    events.push(event('tx', { signature: Buffer.from(tx.signatures[i] ?? new Uint8Array()).toString('base64') }));
  });
  return events;
}

/** baseapp's `message` event of a message, before the message's own events; every one gets `msg_index`. */
export function messageEvents(typeUrl: string, signer: string, index: number, own: readonly Event[]): Event[] {
  const module = /^\/cosmos\.([^.]+)\./.exec(typeUrl)?.[1] ?? '';
  const all = [event('message', { action: typeUrl, sender: signer, ...(module === '' ? {} : { module }) }), ...own];
  return all.map((e) => ({ type: e.type, attributes: [...e.attributes, { key: 'msg_index', value: String(index) }] }));
}
