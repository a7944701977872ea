/**
 * `start --sim-peer-key <priv_validator_key.json>` (issue #32): the public key of another home's
 * validator, which one of the simulated peers then signs with — the network as it looks when a second
 * machine runs that key. Only `pub_key.value` is read (32 bytes, base64, CometBFT's
 * `tendermint/PubKeyEd25519`).
 */
import { SimError } from '../util/errors.js';
import { readOptional } from '../util/read-optional.js';

export async function readPeerPublicKey(file: string): Promise<Buffer> {
  const invalid = (why: string) =>
    new SimError('SIM_PEER_KEY_INVALID', `--sim-peer-key ${file}: ${why}`, { hint: "give a validator's config/priv_validator_key.json" });
  const text = await readOptional(file);
  if (text === undefined) throw invalid('no such file');
  let value: unknown;
  try {
    value = (JSON.parse(text) as { pub_key?: { value?: unknown } }).pub_key?.value;
  } catch (error) {
    throw invalid(`not JSON (${(error as Error).message})`);
  }
  const key = typeof value === 'string' ? Buffer.from(value, 'base64') : Buffer.alloc(0);
  if (key.length !== 32) throw invalid('it holds no 32-byte ed25519 pub_key.value');
  return key;
}
