/**
 * A consensus key's address and an operator's account, the two rules validatorByConsensusAddress
 * matches by (the search itself runs against the simulated node in governance.test.ts).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';

import { bech32 } from '@scure/base';
import { PubKey as Ed25519PubKey } from 'cosmjs-types/cosmos/crypto/ed25519/keys.js';
import { PubKey as Secp256k1PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys.js';

import { accountOf, consensusAddressOf } from '../../src/chain/validators.js';

test('an ed25519 key: the first 20 bytes of its sha256; secp256k1: ripemd160 of its sha256; anything else: none', () => {
  const key = Buffer.alloc(32, 7);
  const ed = { typeUrl: '/cosmos.crypto.ed25519.PubKey', value: Ed25519PubKey.encode({ key }).finish() };
  assert.equal(consensusAddressOf(ed), createHash('sha256').update(key).digest('hex').slice(0, 40).toUpperCase());
  const secpKey = Buffer.concat([Buffer.from([2]), Buffer.alloc(32, 9)]);
  const secp = { typeUrl: '/cosmos.crypto.secp256k1.PubKey', value: Secp256k1PubKey.encode({ key: secpKey }).finish() };
  const sha = createHash('sha256').update(secpKey).digest();
  assert.equal(consensusAddressOf(secp), createHash('ripemd160').update(sha).digest('hex').toUpperCase());
  assert.equal(consensusAddressOf({ typeUrl: '/cosmos.crypto.ed25519.PubKey', value: Uint8Array.from([0x0a, 0x40]) }), undefined);
  assert.equal(consensusAddressOf({ typeUrl: '/cosmos.crypto.bn254.PubKey', value: new Uint8Array() }), undefined);
  assert.equal(consensusAddressOf(undefined), undefined);
});

test('the account of an operator: the same bytes under the prefix without valoper', () => {
  const account = 'cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn';
  const operator = bech32.encode('cosmosvaloper', bech32.decode(account).words);
  assert.equal(accountOf(operator), account);
  assert.equal(accountOf(operator.replace(/.$/, (c) => (c === 'q' ? 'p' : 'q'))), undefined, 'a wrong checksum');
  assert.equal(accountOf('cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn'), undefined, 'an account is no operator');
  assert.equal(accountOf('not bech32'), undefined);
});
