/**
 * Bech32 addresses (BIP-173), so the node's accounts look like a real chain's: the governance module
 * account is `cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn`, as on every Cosmos-SDK chain.
 */
import { createHash } from 'node:crypto';

const charset = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const generator = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values: number[]): number {
  let chk = 1;
  for (const value of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ value;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= generator[i] as number;
  }
  return chk;
}

function hrpExpand(hrp: string): number[] {
  const codes = [...hrp].map((c) => c.charCodeAt(0));
  return [...codes.map((c) => c >>> 5), 0, ...codes.map((c) => c & 31)];
}

function toWords(bytes: Uint8Array): number[] {
  const words: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      words.push((acc >>> bits) & 31);
    }
  }
  if (bits > 0) words.push((acc << (5 - bits)) & 31);
  return words;
}

export function bech32Encode(hrp: string, bytes: Uint8Array): string {
  const words = toWords(bytes);
  const mod = polymod([...hrpExpand(hrp), ...words, 0, 0, 0, 0, 0, 0]) ^ 1;
  const checksum = Array.from({ length: 6 }, (_, i) => (mod >>> (5 * (5 - i))) & 31);
  return `${hrp}1${[...words, ...checksum].map((w) => charset[w]).join('')}`;
}

/** True when `text` is a well-formed bech32 string with the given prefix and a valid checksum. */
export function isBech32(text: string, hrp: string): boolean {
  if (text !== text.toLowerCase() || !text.startsWith(`${hrp}1`)) return false;
  const data = [...text.slice(hrp.length + 1)].map((c) => charset.indexOf(c));
  if (data.length < 6 || data.some((d) => d < 0)) return false;
  return polymod([...hrpExpand(hrp), ...data]) === 1;
}

export const addressPrefix = 'cosmos';

/** A module account's address: the first 20 bytes of sha256(module name), as in the SDK. */
export function moduleAddress(module: string): string {
  return bech32Encode(addressPrefix, createHash('sha256').update(module).digest().subarray(0, 20));
}

/** The address of a named key of the simulated keyring (deterministic, so every home agrees). */
export function keyAddress(name: string): string {
  return bech32Encode(addressPrefix, createHash('sha256').update(`simd/key/${name}`).digest().subarray(0, 20));
}

function fromWords(words: readonly number[]): Buffer {
  const bytes: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const word of words) {
    acc = (acc << 5) | word;
    bits += 5;
    while (bits >= 8) {
      bits -= 8;
      bytes.push((acc >>> bits) & 0xff);
    }
  }
  return Buffer.from(bytes);
}

/** Splits a bech32 string into its prefix and bytes; throws with the reason (in the words of Go's bech32). */
export function bech32Decode(text: string): { hrp: string; bytes: Buffer } {
  const fail = (reason: string) => new Error(`decoding bech32 failed: ${reason}`);
  const lower = text.toLowerCase();
  if (text !== lower && text !== text.toUpperCase()) throw fail('string not all lowercase or all uppercase');
  const separator = lower.lastIndexOf('1');
  if (separator < 1 || separator + 7 > lower.length) throw fail(`invalid separator index ${separator}`);
  const hrp = lower.slice(0, separator);
  const data = [...lower.slice(separator + 1)];
  const bad = data.find((c) => !charset.includes(c));
  if (bad !== undefined) throw fail(`invalid character not part of charset: ${bad.charCodeAt(0)}`);
  const words = data.map((c) => charset.indexOf(c));
  if (polymod([...hrpExpand(hrp), ...words]) !== 1) throw fail('invalid checksum');
  return { hrp, bytes: fromWords(words.slice(0, -6)) };
}
