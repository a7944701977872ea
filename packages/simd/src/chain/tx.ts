/**
 * Transactions of the simulated chain: `cosmos.tx.v1beta1.TxRaw` bytes, as every Cosmos-SDK chain
 * carries them (body with the messages as Any, auth info with one signer info per signer, signatures).
 * Decoding follows the SDK's decoder: the TxRaw's fields in ADR-027 order, then body and auth info;
 * anything it cannot read is `<reason>: tx parse error` (code 2). The simulated keyring has no key
 * pairs: `simSigned` puts a placeholder public key and signature, which the node does not verify.
 */
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys.js';
import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing.js';
import { AuthInfo, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx.js';
import type { Any } from 'cosmjs-types/google/protobuf/any.js';

import type { AnyMsg } from '../core/msg.js';
import { messageFromAny, messageToAny, UnknownTypeUrl } from '../gov/messages.js';
import { hexUpper, sha256 } from '../util/bytes.js';
import type { Coin } from '../util/coins.js';
import { ChainError } from '../util/errors.js';

export interface SignerInfo {
  pubKey?: Any;
  sequence: bigint;
}

export interface Tx {
  body: { messages: AnyMsg[]; memo: string };
  signerInfos: SignerInfo[];
  fee: { amount: Coin[]; gasLimit: bigint };
  signatures: Uint8Array[];
}

/** The SDK CLI's default `--gas`. */
export const defaultGasLimit = 200_000n;

export function encodeTx(tx: Tx): Buffer {
  const bodyBytes = TxBody.encode(TxBody.fromPartial({ messages: tx.body.messages.map(messageToAny), memo: tx.body.memo })).finish();
  const authInfoBytes = AuthInfo.encode(
    AuthInfo.fromPartial({
      signerInfos: tx.signerInfos.map((s) => ({ publicKey: s.pubKey, modeInfo: { single: { mode: SignMode.SIGN_MODE_DIRECT } }, sequence: s.sequence })),
      fee: { amount: tx.fee.amount, gasLimit: tx.fee.gasLimit },
    }),
  ).finish();
  return Buffer.from(TxRaw.encode({ bodyBytes, authInfoBytes, signatures: tx.signatures }).finish());
}

const parseError = (reason: string) => new ChainError('sdk', 2, `${reason}: tx parse error`);

/** The SDK's rejectNonADR027TxRaw: only length-delimited fields, in ascending order. */
function checkAdr027(bytes: Uint8Array): void {
  let offset = 0;
  let previous = 0;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (offset >= bytes.length) throw parseError('unexpected EOF');
      const byte = bytes[offset++] as number;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
    throw parseError('variable length integer overflow');
  };
  while (offset < bytes.length) {
    const tag = varint();
    const field = Math.floor(tag / 8);
    const wireType = tag & 7;
    if (wireType !== 2) throw parseError(`expected 2 wire type, got ${wireType}`);
    if (field < previous) throw parseError(`txRaw must follow ADR-027, got tagNum ${field} after tagNum ${previous}`);
    previous = field;
    const length = varint();
    if (offset + length > bytes.length) throw parseError('unexpected EOF');
    offset += length;
  }
}

function read<T>(decode: () => T): T {
  try {
    return decode();
  } catch (error) {
    if (error instanceof ChainError) throw error;
    throw parseError(error instanceof Error ? error.message : String(error));
  }
}

export function decodeTx(bytes: Uint8Array): Tx {
  checkAdr027(bytes);
  const raw = read(() => TxRaw.decode(bytes));
  const body = read(() => TxBody.decode(raw.bodyBytes));
  const authInfo = read(() => AuthInfo.decode(raw.authInfoBytes));
  const messages = read(() => {
    try {
      return body.messages.map(messageFromAny);
    } catch (error) {
      if (error instanceof UnknownTypeUrl) throw parseError(error.message);
      throw error;
    }
  });
  return {
    body: { messages, memo: body.memo },
    signerInfos: authInfo.signerInfos.map((s) => ({ pubKey: s.publicKey, sequence: s.sequence })),
    fee: { amount: authInfo.fee?.amount ?? [], gasLimit: authInfo.fee?.gasLimit ?? 0n },
    signatures: raw.signatures,
  };
}

/** CometBFT's transaction hash: sha256 of the TxRaw bytes. */
export function txHash(bytes: Uint8Array): string {
  return hexUpper(sha256(bytes));
}

/** The simulated keyring's public key of an address: a compressed-secp256k1-shaped placeholder (33 bytes). */
export function simPubKey(address: string): Any {
  const key = Buffer.concat([Buffer.from([0x02]), sha256(`simd/pubkey/${address}`)]);
  return { typeUrl: '/cosmos.crypto.secp256k1.PubKey', value: PubKey.encode({ key }).finish() };
}

export interface SimSignOptions {
  sequence: bigint;
  gasLimit?: bigint;
  fee?: Coin[];
  memo?: string;
}

/** A transaction of one signer from the simulated keyring (placeholder key and signature). */
export function simSigned(signer: string, messages: AnyMsg[], options: SimSignOptions): Tx {
  const tx: Tx = {
    body: { messages, memo: options.memo ?? '' },
    signerInfos: [{ pubKey: simPubKey(signer), sequence: options.sequence }],
    fee: { amount: options.fee ?? [], gasLimit: options.gasLimit ?? defaultGasLimit },
    signatures: [],
  };
  const unsigned = encodeTx(tx);
  tx.signatures = [Buffer.concat([sha256(Buffer.concat([Buffer.from(signer), unsigned])), sha256(unsigned)])];
  return tx;
}
