import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bech32Encode, isBech32, moduleAddress } from '../../src/util/bech32.js';

test('BIP-173 vectors encode and validate', () => {
  assert.equal(bech32Encode('a', new Uint8Array()), 'a12uel5l');
  assert.ok(isBech32('abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw', 'abcdef'));
  assert.ok(!isBech32('abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxx', 'abcdef'));
});

test('the gov module account has the address every Cosmos-SDK chain gives it', () => {
  assert.equal(moduleAddress('gov'), 'cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn');
});
