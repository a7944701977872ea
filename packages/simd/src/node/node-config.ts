/**
 * The node's own identity in its home, as `init` leaves it for a real node: the moniker in
 * `config/config.toml`, the p2p key in `config/node_key.json`, whose public key gives the node id
 * (CometBFT p2p.NodeKey.ID: the first 20 bytes of its sha256, in lower-case hex), and the validator's
 * consensus key in `config/priv_validator_key.json` (its public key also goes into genesis). Homes
 * made before these files were written keep the identity they always had: the binary's name, an id
 * derived from the chain id and a fixed validator key.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { consensusAddress } from '../chain/consensus-key.js';
import { sha256 } from '../util/bytes.js';
import { isErrno, SimError } from '../util/errors.js';
import { readOptional } from '../util/read-optional.js';
import { listenDefaults } from './listen-config.js';
import { readTomlFile, tomlText } from './toml-file.js';

export interface NodeConfig {
  moniker: string;
  /** 40 lower-case hex digits. */
  nodeId: string;
}

const configToml = (home: string) => path.join(home, 'config', 'config.toml');
const nodeKeyJson = (home: string) => path.join(home, 'config', 'node_key.json');
const privValidatorKeyJson = (home: string) => path.join(home, 'config', 'priv_validator_key.json');

const keyType = 'tendermint/PrivKeyEd25519';
const pubKeyType = 'tendermint/PubKeyEd25519';

function nodeIdOf(publicKey: Buffer): string {
  return sha256(publicKey).subarray(0, 20).toString('hex');
}

/** A new ed25519 key as CometBFT keeps it: 64 bytes, the seed then the public key. */
function newKey(): Buffer {
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  return Buffer.concat([Buffer.from(jwk.d ?? '', 'base64url'), Buffer.from(jwk.x ?? '', 'base64url')]);
}

function newNodeKey(): string {
  return `${JSON.stringify({ priv_key: { type: keyType, value: newKey().toString('base64') } })}\n`;
}

/**
 * `init`: the validator's consensus public key from `config/priv_validator_key.json`, made first if
 * the home has none (CometBFT LoadOrGenFilePV, which `init` runs before it writes genesis).
 */
export async function loadOrGenValidatorKey(home: string): Promise<Buffer> {
  const file = privValidatorKeyJson(home);
  const text = await readOptional(file);
  if (text !== undefined) return publicKeyOf(text, file);
  const key = newKey();
  const pubKey = key.subarray(32);
  const json = {
    address: consensusAddress(pubKey),
    pub_key: { type: pubKeyType, value: pubKey.toString('base64') },
    priv_key: { type: keyType, value: key.toString('base64') },
  };
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(json, null, 2)}\n`, { flag: 'wx', mode: 0o600 });
  return pubKey;
}

/** The public key of the home's `config/priv_validator_key.json`; undefined when the home has none. */
export async function readValidatorPubKey(home: string): Promise<Buffer | undefined> {
  const file = privValidatorKeyJson(home);
  const text = await readOptional(file);
  return text === undefined ? undefined : publicKeyOf(text, file);
}

/**
 * `init`: writes config.toml with the moniker and the RPC's listen address (as the SDK's init does,
 * replacing the file) and a node key unless the home has one (CometBFT LoadOrGenNodeKey keeps an existing key).
 */
export async function initNodeConfig(home: string, moniker: string): Promise<void> {
  const toml = [
    "# The simulated node's CometBFT configuration; the moniker and [rpc] laddr are read.",
    '',
    `moniker = ${JSON.stringify(moniker)}`,
    '',
    '[rpc]',
    `laddr = ${JSON.stringify(listenDefaults.rpcLaddr)}`,
    '',
  ].join('\n');
  await writeFile(configToml(home), toml, { mode: 0o644 });
  try {
    await writeFile(nodeKeyJson(home), newNodeKey(), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if (!isErrno(error, 'EEXIST')) throw error;
  }
}

function publicKeyOf(text: string, file: string): Buffer {
  let value: unknown;
  try {
    value = (JSON.parse(text) as { priv_key?: { value?: unknown } }).priv_key?.value;
  } catch (cause) {
    throw new SimError('SIM_NODE_KEY_INVALID', `${file} is not JSON: ${(cause as Error).message}`, {
      hint: 'restore the file, or remove it and run init again to make a new key',
    });
  }
  const key = typeof value === 'string' ? Buffer.from(value, 'base64') : Buffer.alloc(0);
  if (key.length !== 64) {
    throw new SimError('SIM_NODE_KEY_INVALID', `${file} holds no 64-byte ed25519 priv_key.value`, {
      hint: 'restore the file, or remove it and run init again to make a new key',
    });
  }
  return key.subarray(32);
}

/** The moniker and node id of a home; `fallback` for a home `init` wrote before it kept them. */
export async function readNodeConfig(home: string, fallback: { name: string; chainId: string }): Promise<NodeConfig> {
  const moniker = tomlText(await readTomlFile(configToml(home)), 'moniker') ?? fallback.name;
  const keyText = await readOptional(nodeKeyJson(home));
  let nodeId = sha256('simd/node', fallback.chainId).toString('hex').slice(0, 40);
  if (keyText !== undefined) nodeId = nodeIdOf(publicKeyOf(keyText, nodeKeyJson(home)));
  return { moniker, nodeId };
}
