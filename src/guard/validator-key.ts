/**
 * This validator's address (issue #32, REFERENCE §9), from `config/priv_validator_key.json` (or
 * config.toml's `priv_validator_key_file`): the `address` field (40 hex digits, the first 20 bytes of
 * the SHA-256 of the Ed25519 public key), which the network's commits name their signers by. Nothing else of the file is kept, and nothing of it is
 * ever shown: the file is read bounded, the schema keeps only `address`, and a file that is not JSON is
 * reported without the parser's message (which quotes the text around the fault, the private key
 * included).
 */
import * as v from 'valibot';

import { readBounded } from '../shared/fsread/index.js';
import { parseJson } from '../shared/json.js';

export type ValidatorAddress =
  | { status: 'ok'; address: string; file: string }
  /** No key file: the node has no local key (a remote signer, or not a validator). */
  | { status: 'missing'; file: string }
  | { status: 'unreadable'; file: string; reason: string };

/** A key file is a few hundred bytes. */
const maxKeyFileBytes = 64 * 1024;

const keyShape = v.object({ address: v.pipe(v.string(), v.regex(/^[0-9A-Fa-f]{40}$/, 'not 40 hexadecimal digits')) });

export async function readValidatorAddress(file: string): Promise<ValidatorAddress> {
  const read = await readBounded(file, maxKeyFileBytes);
  if (read.status === 'missing') return { status: 'missing', file };
  if (read.status === 'refused') return { status: 'unreadable', file, reason: read.reason };
  const parsed = parseJson(read.text, keyShape, { maxBytes: maxKeyFileBytes, maxDepth: 8 });
  if (!parsed.ok) {
    const reason = parsed.reason.startsWith('it is not JSON') ? 'it is not JSON' : parsed.reason.startsWith('address') ? `its ${parsed.reason}` : parsed.reason;
    return { status: 'unreadable', file, reason };
  }
  return { status: 'ok', address: parsed.value.address.toUpperCase(), file };
}
