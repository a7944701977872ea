/**
 * Transactions of the simulated chain: JSON `{"body":{"messages":[…],"memo":""},"signer":"cosmos1…"}`.
 * There are no keys or signatures; `signer` is whatever `--from` resolved to, and every message must be
 * signed by it, as the SDK requires.
 */
import { ChainError } from '../util/errors.js';
import { hexUpper, sha256 } from '../util/bytes.js';
import type { AnyMsg } from '../gov/types.js';

export interface Tx {
  body: { messages: AnyMsg[]; memo: string };
  signer: string;
}

export function encodeTx(tx: Tx): Buffer {
  return Buffer.from(JSON.stringify(tx));
}

export function decodeTx(bytes: Uint8Array): Tx {
  let tx: Tx;
  try {
    tx = JSON.parse(Buffer.from(bytes).toString('utf8')) as Tx;
  } catch {
    throw new ChainError('sdk', 2, 'tx parse error');
  }
  if (typeof tx?.signer !== 'string' || !Array.isArray(tx.body?.messages) || tx.body.messages.length === 0) {
    throw new ChainError('sdk', 2, 'tx parse error: expected a signer and at least one message');
  }
  for (const msg of tx.body.messages) {
    if (typeof msg?.['@type'] !== 'string') throw new ChainError('sdk', 2, 'tx parse error: a message has no @type');
  }
  return tx;
}

export function txHash(bytes: Uint8Array): string {
  return hexUpper(sha256(bytes));
}
