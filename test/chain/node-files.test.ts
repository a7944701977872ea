/**
 * The node's own files as every part of chainvisor reads them: config.toml's paths resolved against the
 * home with CometBFT's defaults, each file saying whether it was missing, refused or malformed, and the
 * genesis chain id read from the top level only.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { cachedChainId, nodeConfigOf, readChainId, readNodeToml } from '../../src/chain/index.js';

describe("the node's files", () => {
  let home: string;
  beforeEach(async () => {
    home = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-node-files-'));
    await fs.mkdir(path.join(home, 'config'));
  });
  afterEach(async () => {
    await fs.rm(home, { recursive: true, force: true });
  });
  const write = (name: string, text: string) => fs.writeFile(path.join(home, 'config', name), text);

  test("config.toml's paths, relative to the home; CometBFT's defaults where it names none", async () => {
    const defaults = {
      moniker: undefined,
      genesisFile: path.join(home, 'config', 'genesis.json'),
      keyFile: path.join(home, 'config', 'priv_validator_key.json'),
      stateFile: path.join(home, 'data', 'priv_validator_state.json'),
      remoteSigner: '',
    };
    const missing = await readNodeToml(home, 'config.toml');
    assert.equal(missing.status, 'missing');
    assert.deepEqual(nodeConfigOf(home, missing), defaults);

    await write('config.toml', 'moniker = [broken');
    const broken = await readNodeToml(home, 'config.toml');
    assert.equal(broken.status, 'malformed');
    assert.deepEqual(nodeConfigOf(home, broken), defaults, 'the node refuses its own broken file: the defaults stand');

    await write(
      'config.toml',
      [
        'moniker = " val-1 "',
        'genesis_file = "/srv/genesis.json"',
        'priv_validator_key_file = "keys/key.json"',
        'priv_validator_state_file = "state/pvs.json"',
        'priv_validator_laddr = "tcp://10.0.0.9:26659"',
      ].join('\n'),
    );
    assert.deepEqual(nodeConfigOf(home, await readNodeToml(home, 'config.toml'), '/elsewhere/data'), {
      moniker: 'val-1',
      genesisFile: '/srv/genesis.json',
      keyFile: path.join(home, 'keys', 'key.json'),
      stateFile: path.join(home, 'state', 'pvs.json'),
      remoteSigner: 'tcp://10.0.0.9:26659',
    });
    await write('config.toml', 'priv_validator_state_file = "data/priv_validator_state.json"\n');
    assert.equal(nodeConfigOf(home, await readNodeToml(home, 'config.toml'), '/elsewhere/data').stateFile, '/elsewhere/data/priv_validator_state.json');
  });

  test('a folder in place of config.toml is refused, with the reason and the path', async () => {
    await fs.mkdir(path.join(home, 'config', 'config.toml'));
    const read = await readNodeToml(home, 'config.toml');
    assert.equal(read.status, 'refused');
    assert.equal(read.file, path.join(home, 'config', 'config.toml'));
  });

  test('the chain id is the genesis top-level chain_id, not one nested in app_state', async (t) => {
    const dir = await fs.mkdtemp(path.join(process.env.TMPDIR ?? '/tmp', 'genesis-'));
    t.after(() => fs.rm(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'genesis.json');
    await fs.writeFile(file, JSON.stringify({ app_state: { ibc: { clients: [{ chain_id: 'other-1' }] }, note: 'a "quoted" chain_id' }, chain_id: 'mine-7' }));
    assert.equal(await readChainId(file), 'mine-7');
    assert.equal(await readChainId(path.join(dir, 'none.json')), 'unknown');
  });

  test('the cached chain id is read again when the genesis file changes', async () => {
    const file = path.join(home, 'config', 'genesis.json');
    const chainIdOf = cachedChainId();
    await fs.writeFile(file, '{"chain_id":"one-1"}');
    assert.equal(await chainIdOf(file), 'one-1');
    await fs.writeFile(file, '{"chain_id":"second-22"}');
    assert.equal(await chainIdOf(file), 'second-22');
  });
});
