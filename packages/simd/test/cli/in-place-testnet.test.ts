/**
 * `in-place-testnet` against real processes: a home that produced blocks becomes a testnet of this
 * home's validator key; with a trigger, the old binary halts at the next block exactly as at any
 * upgrade and the new one runs the handler there; refusals and a "no" change nothing; a version built
 * without the command answers as cobra does for an unknown command.
 */
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { access, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { execa } from 'execa';

import { openDatabase } from '../../src/store/db.js';
import { bech32Encode } from '../../src/util/bech32.js';
import { cli, cliJson, deadline, readUpgradeInfoFile, type SimFixture, simFixture, spawnNode, startNode, waitFor } from '../support/node-harness.js';

const operator = bech32Encode('cosmosvaloper', Buffer.alloc(20, 0x42));
const operatorAccount = bech32Encode('cosmos', Buffer.alloc(20, 0x42));

/** A home after a few blocks of `genesis`; returns it with its last committed height. */
async function homeWithBlocks(t: TestContext, fx: SimFixture, blocks = 3): Promise<{ home: string; height: number }> {
  const home = await fx.initHome();
  const node = await startNode(t, fx.bin('genesis'), home);
  await node.waitForHeight(blocks);
  assert.equal((await node.stop()).code, 0);
  const heights = [...node.log().matchAll(/committed state .*height=(\d+)/g)].map((m) => Number(m[1]));
  return { home, height: Math.max(...heights) };
}

/** A new consensus key in the home, as an operator puts their own key on a copy of a node's home. */
async function newValidatorKey(home: string): Promise<{ pubKey: Buffer; address: Buffer }> {
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  const pubKey = Buffer.from(jwk.x ?? '', 'base64url');
  const address = createHash('sha256').update(pubKey).digest().subarray(0, 20);
  const key = {
    address: address.toString('hex').toUpperCase(),
    pub_key: { type: 'tendermint/PubKeyEd25519', value: pubKey.toString('base64') },
    priv_key: { type: 'tendermint/PrivKeyEd25519', value: Buffer.concat([Buffer.from(jwk.d ?? '', 'base64url'), pubKey]).toString('base64') },
  };
  await writeFile(path.join(home, 'config', 'priv_validator_key.json'), JSON.stringify(key), { mode: 0o600 });
  return { pubKey, address };
}

/** Every byte of the home's genesis and state, hashed: equal before and after means nothing changed. */
async function fingerprint(home: string): Promise<string> {
  const hash = createHash('sha256').update(await readFile(path.join(home, 'config', 'genesis.json')));
  const db = await openDatabase(path.join(home, 'data'));
  try {
    for (const [key, value] of await db.reader.range(Buffer.alloc(0))) hash.update(key).update(value);
  } finally {
    await db.close();
  }
  return hash.digest('hex');
}

test('with a trigger the old binary halts at the next block for the plan, on the new chain id and validator; v2 then runs the handler there', async (t) => {
  const fx = await simFixture(t, { versions: ['genesis', 'v2'] });
  const { home, height } = await homeWithBlocks(t, fx);
  const key = await newValidatorKey(home);

  // --halt-mode stay: the halted node stays up, so what it reports can be read.
  const testnet = spawnNode(
    t,
    fx.bin('genesis'),
    home,
    ['rehearsal-1', operator, '--trigger-testnet-upgrade', 'v2', '--skip-confirmation', '--halt-mode', 'stay'],
    {},
    ['in-place-testnet'],
  );
  await waitFor(() => readUpgradeInfoFile(home).catch(() => undefined), 'upgrade-info.json');
  assert.deepEqual(JSON.parse(await readUpgradeInfoFile(home)), { name: 'v2', time: '0001-01-01T00:00:00Z', height: height + 1 });
  await waitFor(() => /block production stopped/.test(testnet.log()), 'the halt');
  assert.match(
    testnet.log(),
    new RegExp(
      `in-place testnet: the home now runs a testnet .*old_chain_id=sim-1 chain_id=rehearsal-1 operator=${operator} .*height=${height} trigger_upgrade=v2`,
    ),
  );
  assert.ok(testnet.log().includes(`ERR UPGRADE "v2" NEEDED at height: ${height}: `), testnet.log());

  const status = JSON.parse((await cli(fx.bin('genesis'), ['status', '--home', home])).stdout);
  assert.equal(status.NodeInfo.network, 'rehearsal-1');
  assert.equal(status.SyncInfo.latest_block_height, String(height));
  assert.deepEqual(status.ValidatorInfo, {
    Address: key.address.toString('base64'),
    PubKey: { type: 'tendermint/PubKeyEd25519', value: key.pubKey.toString('base64') },
    VotingPower: '900000000000000',
  });
  const plan = await cliJson(fx.bin('genesis'), ['query', 'upgrade', 'plan', '--home', home]);
  assert.deepEqual(plan, { name: 'v2', time: '0001-01-01T00:00:00Z', height: String(height), info: '', upgraded_client_state: null });
  const genesis = JSON.parse(await readFile(path.join(home, 'config', 'genesis.json'), 'utf8'));
  assert.equal(genesis.chain_id, 'rehearsal-1');
  assert.deepEqual(
    genesis.app_state.staking.validators.map((v: Record<string, string>) => [v.address, v.operator_address, v.power]),
    [[operatorAccount, operator, '900000000000000']],
  );
  testnet.proc.kill('SIGTERM');
  assert.equal((await testnet.exit).code, 0);

  // The new binary, started as usual on the halted home, applies v2 at the next block and goes on.
  const upgraded = await startNode(t, fx.bin('v2'), home);
  await upgraded.waitForHeight(height + 3);
  assert.match(upgraded.log(), new RegExp(`applying store upgrades for "v2" at height ${height + 1} .*added=newmod`));
  assert.match(upgraded.log(), new RegExp(`applying upgrade "v2" at height: ${height}`));
  const applied = JSON.parse((await cli(fx.bin('v2'), ['query', 'upgrade', 'applied', 'v2', '--home', home])).stdout);
  assert.equal(applied.header.height, String(height + 1));
  assert.equal(applied.header.chain_id, 'rehearsal-1');
  assert.equal(applied.header.proposer_address, key.address.toString('hex').toUpperCase());
  const validators = (await upgraded.http('rpc', '/validators')).body.result;
  assert.deepEqual(
    validators.validators.map((v: Record<string, string>) => [v.address, v.voting_power]),
    [[key.address.toString('hex').toUpperCase(), '900000000000000']],
  );
  assert.equal((await cli(fx.bin('v2'), ['query', 'upgrade', 'plan', '--home', home])).stderr.includes('no upgrade scheduled'), true);
  assert.equal((await upgraded.stop()).code, 0);
});

test('refusals and a "no" change nothing; --skip-confirmation halts at the next block with exit 2; an old binary has no such command', async (t) => {
  const fx = await simFixture(t, { versions: ['genesis'], variants: { 'genesis-old': { from: 'genesis', inPlaceTestnet: false } } });
  const { home, height } = await homeWithBlocks(t, fx);
  const bin = fx.bin('genesis');
  const before = await fingerprint(home);
  const run = (args: string[], input?: string) =>
    execa(bin, ['in-place-testnet', ...args, '--home', home], { reject: false, timeout: deadline, ...(input === undefined ? {} : { input }) });

  const badChecksum = `${operator.slice(0, -1)}${operator.endsWith('q') ? 'p' : 'q'}`;
  const refused = await run(['rehearsal-1', badChecksum, '--skip-confirmation']);
  assert.equal(refused.exitCode, 1);
  assert.match(
    refused.stderr,
    /^Error: decoding bech32 failed: invalid checksum \(expected \w{6} got \w{6}\)\nHint: give the new validator's operator address/,
  );
  const account = await run(['rehearsal-1', operatorAccount, '--skip-confirmation']);
  assert.equal(account.exitCode, 1);
  assert.match(account.stderr, /^Error: invalid Bech32 prefix; expected cosmosvaloper, got cosmos\n/);
  const oneArg = await run(['rehearsal-1', '--skip-confirmation']);
  assert.equal(oneArg.exitCode, 1);
  assert.match(oneArg.stderr, /^Error: accepts 2 arg\(s\), received 1\n/);

  for (const input of ['n\n', 'no\n', '\n', '']) {
    const declined = await run(['rehearsal-1', operator, '--trigger-testnet-upgrade', 'v2'], input);
    assert.equal(declined.exitCode, 0, declined.stderr);
    assert.equal(
      declined.stdout,
      'This operation will modify state in your data folder and cannot be undone. Do you want to continue? (y/n)\nOperation canceled.',
    );
  }
  assert.equal(await fingerprint(home), before);
  await assert.rejects(access(path.join(home, 'data', 'upgrade-info.json')));

  const old = await execa(fx.bin('genesis-old'), ['in-place-testnet', 'rehearsal-1', operator, '--home', home, '--skip-confirmation'], { reject: false });
  assert.equal(old.exitCode, 1);
  assert.match(old.stderr, /^Error: unknown command "in-place-testnet" for "simd"\n/);
  assert.doesNotMatch((await execa(fx.bin('genesis-old'), ['--help'])).stdout, /in-place-testnet/);
  assert.match((await execa(bin, ['--help'])).stdout, /in-place-testnet/);
  assert.equal(await fingerprint(home), before);

  // As chainvisor runs it: no stdin, --skip-confirmation, default halt mode.
  const { exit, log } = spawnNode(t, bin, home, ['rehearsal-2', operator, '--trigger-testnet-upgrade', 'v2', '--skip-confirmation'], {}, ['in-place-testnet']);
  assert.equal((await exit).code, 2, log());
  assert.ok(log().includes(`ERR UPGRADE "v2" NEEDED at height: ${height}: `), log());
  assert.deepEqual(JSON.parse(await readUpgradeInfoFile(home)), { name: 'v2', time: '0001-01-01T00:00:00Z', height: height + 1 });
  await assert.rejects(access(path.join(home, 'config', 'addresses.json')));
  // The ordinary start of the same binary halts there again.
  const again = spawnNode(t, bin, home, [], {});
  assert.equal((await again.exit).code, 2);
  assert.match(again.log(), new RegExp(`starting node .*chain_id=rehearsal-2 height=${height} `));
});

test('run by the binary that has the handler, the first block of the testnet runs the triggered upgrade with its store upgrades', async (t) => {
  const fx = await simFixture(t, { versions: ['genesis', 'v2'] });
  const { home, height } = await homeWithBlocks(t, fx);
  const testnet = spawnNode(t, fx.bin('v2'), home, ['rehearsal-1', operator, '--trigger-testnet-upgrade', 'v2', '--skip-confirmation'], {}, [
    'in-place-testnet',
  ]);
  await waitFor(() => new RegExp(`committed state .*height=${height + 2} `).test(testnet.log()), `height ${height + 2}`);
  assert.match(testnet.log(), new RegExp(`applying store upgrades for "v2" at height ${height + 1} .*added=newmod`));
  assert.match(testnet.log(), new RegExp(`applying upgrade "v2" at height: ${height}\\b`));
  await assert.rejects(access(path.join(home, 'data', 'upgrade-info.json')));
  const stores = await cliJson<{ stores: Array<{ name: string; added_height: string }>; store_upgrades: Record<string, string> }>(fx.bin('v2'), [
    'query',
    'stores',
    '--home',
    home,
  ]);
  assert.deepEqual(
    stores.stores.find((s) => s.name === 'newmod'),
    { name: 'newmod', added_height: String(height + 1) },
  );
  assert.deepEqual(stores.store_upgrades, { v2: String(height + 1) });
  const applied = JSON.parse((await cli(fx.bin('v2'), ['query', 'upgrade', 'applied', 'v2', '--home', home])).stdout);
  assert.equal(applied.header.height, String(height + 1));
  testnet.proc.kill('SIGTERM');
  assert.equal((await testnet.exit).code, 0);
});
