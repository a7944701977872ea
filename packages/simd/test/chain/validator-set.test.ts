/** The simulated validator set (issue #26): powers, order and addresses of the peers. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { defaultGenesis } from '../../src/chain/genesis.js';
import { hasQuorum, validatorSet } from '../../src/chain/validator-set.js';

test('no peers: this validator alone, with its genesis power', () => {
  const set = validatorSet(defaultGenesis({}), 0n);
  assert.equal(set.validators.length, 1);
  assert.equal(set.totalPower, 1_000_000n);
  assert.equal(set.selfIndex, 0);
  assert.ok(hasQuorum(set, 1_000_000n));
});

test('peers share the power by ten (the first ones take the remainder), sorted by power then address', () => {
  const set = validatorSet(defaultGenesis({}), 2_000_005n);
  assert.equal(set.validators.length, 11);
  assert.equal(set.totalPower, 3_000_005n);
  assert.equal(set.selfIndex, 0);
  const peers = set.validators.slice(1);
  assert.deepEqual(peers.map((v) => v.power).sort(), [...Array<bigint>(5).fill(200_000n), ...Array<bigint>(5).fill(200_001n)].sort());
  for (const [i, v] of set.validators.entries()) {
    const before = set.validators[i - 1];
    if (before !== undefined) assert.ok(before.power > v.power || (before.power === v.power && before.address < v.address));
    assert.match(v.address, /^[0-9A-F]{40}$/);
  }
  // Peers above this validator's power come first.
  const big = validatorSet(defaultGenesis({}), 20_000_000n);
  assert.equal(big.selfIndex, 10);
  // Exactly 2/3 is not enough.
  const third = validatorSet(defaultGenesis({}), 2_000_000n);
  assert.ok(!hasQuorum(third, 2_000_000n));
  assert.ok(hasQuorum(third, 2_000_001n));
  // The same chain id gives the same peers; another gives others.
  assert.deepEqual(
    validatorSet(defaultGenesis({}), 2_000_000n).validators.map((v) => v.address),
    third.validators.map((v) => v.address),
  );
  const other = validatorSet(defaultGenesis({ chainId: 'other-1' }), 2_000_000n);
  assert.notEqual(other.validators[1]?.address, third.validators[1]?.address);
});
