import assert from 'node:assert/strict';
import { test } from 'node:test';

import { bech32Decode, bech32Encode, isBech32, keyAddress, moduleAddress, valAddressFromBech32 } from '../../src/util/bech32.js';

test('BIP-173 vectors encode and validate', () => {
  assert.equal(bech32Encode('a', new Uint8Array()), 'a12uel5l');
  assert.ok(isBech32('abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw', 'abcdef'));
  assert.ok(!isBech32('abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxx', 'abcdef'));
  assert.ok(!isBech32('abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw', 'abcde'));
});

test('the gov module account has the address every Cosmos-SDK chain gives it', () => {
  assert.equal(moduleAddress('gov'), 'cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn');
});

test('decoding gives the bytes back, or the reason in the words of the SDK', () => {
  const bytes = Buffer.from('00112233445566778899aabbccddeeff00112233', 'hex');
  const text = bech32Encode('cosmos', bytes);
  assert.deepEqual(bech32Decode(text), { hrp: 'cosmos', bytes });
  assert.deepEqual(bech32Decode(text.toUpperCase()), { hrp: 'cosmos', bytes });
  const fail = (input: string) => () => bech32Decode(input);
  assert.throws(fail('a1qqqq'), { message: 'decoding bech32 failed: invalid bech32 string length 6' });
  assert.throws(fail(`${text.slice(0, 10)}A${text.slice(11)}`), { message: 'decoding bech32 failed: string not all lowercase or all uppercase' });
  assert.throws(fail('qqqqqqqqqqqq'), { message: 'decoding bech32 failed: invalid separator index -1' });
  assert.throws(fail('cosmos1qqqqqqqqqb'), { message: 'decoding bech32 failed: invalid character not part of charset: 98' });
  assert.throws(fail('cosmos1 qqqqqqqq'), { message: "decoding bech32 failed: invalid character in string: ' '" });
  const last = text.at(-1) === 'q' ? 'p' : 'q';
  assert.throws(fail(`${text.slice(0, -1)}${last}`), {
    message: `decoding bech32 failed: invalid checksum (expected ${text.slice(-6)} got ${text.slice(-6, -1)}${last})`,
  });
});

test('a validator operator address is checked as sdk.ValAddressFromBech32', () => {
  const bytes = Buffer.alloc(20, 7);
  assert.deepEqual(valAddressFromBech32(bech32Encode('cosmosvaloper', bytes)), bytes);
  assert.throws(() => valAddressFromBech32(' '), { message: 'empty address string is not allowed' });
  assert.throws(() => valAddressFromBech32(keyAddress('alice')), { message: 'invalid Bech32 prefix; expected cosmosvaloper, got cosmos' });
  assert.throws(() => valAddressFromBech32(bech32Encode('cosmosvaloper', new Uint8Array())), { message: 'addresses cannot be empty: unknown address' });
  assert.throws(() => valAddressFromBech32('cosmosvaloper1xyz'), /^Error: decoding bech32 failed: invalid separator index/);
});
