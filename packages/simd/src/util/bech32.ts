/**
 * Bech32 addresses (BIP-173, with @scure/base), so the node's accounts look like a real chain's: the
 * governance module account is `cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn`, as on every Cosmos-SDK
 * chain. Decoding refuses what the SDK's `bech32.DecodeAndConvert` refuses, with Go's messages, and
 * `valAddressFromBech32` checks a validator operator address as the SDK's `sdk.ValAddressFromBech32`.
 */
import { createHash } from 'node:crypto';

import { bech32 } from '@scure/base';

export const addressPrefix = 'cosmos';
/** The prefix of validator operator addresses (the SDK's Bech32PrefixValAddr). */
export const validatorOperatorPrefix = `${addressPrefix}valoper`;

/** The SDK's limit on a bech32 string it decodes (Go's bech32.Decode(s, 1023)). */
const decodeLimit = 1023;
const charset = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

export function bech32Encode(hrp: string, bytes: Uint8Array): string {
  return bech32.encode(hrp, bech32.toWords(bytes), false);
}

/** True when `text` is a well-formed lower-case bech32 string with the given prefix and a valid checksum. */
export function isBech32(text: string, hrp: string): boolean {
  if (text !== text.toLowerCase() || !text.startsWith(`${hrp}1`)) return false;
  const decoded = bech32.decodeUnsafe(text, decodeLimit);
  return decoded !== undefined && decoded.prefix === hrp;
}

/** A module account's address: the first 20 bytes of sha256(module name), as in the SDK. */
export function moduleAddress(module: string): string {
  return bech32Encode(addressPrefix, createHash('sha256').update(module).digest().subarray(0, 20));
}

/** The address of a named key of the simulated keyring (deterministic, so every home agrees). */
export function keyAddress(name: string): string {
  return bech32Encode(addressPrefix, createHash('sha256').update(`simd/key/${name}`).digest().subarray(0, 20));
}

/**
 * Splits a bech32 string into its prefix and bytes; throws with the reason in the words of the SDK
 * (`decoding bech32 failed: invalid checksum (expected … got …)`, …), checked in Go's order.
 */
export function bech32Decode(text: string): { hrp: string; bytes: Buffer } {
  const fail = (reason: string) => new Error(`decoding bech32 failed: ${reason}`);
  if (text.length < 8 || text.length > decodeLimit) throw fail(`invalid bech32 string length ${text.length}`);
  const outside = [...text].find((c) => c.charCodeAt(0) < 33 || c.charCodeAt(0) > 126);
  if (outside !== undefined) throw fail(`invalid character in string: '${outside}'`);
  const lower = text.toLowerCase();
  if (text !== lower && text !== text.toUpperCase()) throw fail('string not all lowercase or all uppercase');
  const separator = lower.lastIndexOf('1');
  if (separator < 1 || separator + 7 > lower.length) throw fail(`invalid separator index ${separator}`);
  const hrp = lower.slice(0, separator);
  const data = lower.slice(separator + 1);
  const bad = [...data].find((c) => !charset.includes(c));
  if (bad !== undefined) throw fail(`invalid character not part of charset: ${bad.charCodeAt(0)}`);
  const decoded = bech32.decodeUnsafe(lower, decodeLimit);
  if (decoded === undefined) {
    const words = [...data.slice(0, -6)].map((c) => charset.indexOf(c));
    const expected = bech32.encode(hrp, words, false).slice(-6);
    throw fail(`invalid checksum (expected ${expected} got ${data.slice(-6)})`);
  }
  const bytes = bech32.fromWordsUnsafe(decoded.words);
  if (bytes === undefined) throw fail('invalid incomplete group');
  return { hrp, bytes: Buffer.from(bytes) };
}

/**
 * The SDK's `sdk.ValAddressFromBech32`: a validator operator address with this chain's prefix, 1 to
 * 255 bytes; throws with the SDK's message.
 */
export function valAddressFromBech32(text: string): Buffer {
  if (text.trim() === '') throw new Error('empty address string is not allowed');
  const { hrp, bytes } = bech32Decode(text);
  if (hrp !== validatorOperatorPrefix) throw new Error(`invalid Bech32 prefix; expected ${validatorOperatorPrefix}, got ${hrp}`);
  if (bytes.length === 0) throw new Error('addresses cannot be empty: unknown address');
  if (bytes.length > 255) throw new Error(`address max length is 255, got ${bytes.length}: unknown address`);
  return bytes;
}
