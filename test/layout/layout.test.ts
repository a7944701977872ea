import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { layoutFor, readCurrent, readCurrentDir, switchCurrent, upgradeDirName } from '../../src/layout/index.js';

describe('upgrade folder names', () => {
  test('lower-cased and escaped like Go url.PathEscape', () => {
    assert.equal(upgradeDirName('V2.0-Rc1', { recase: true }), 'v2.0-rc1');
    assert.equal(upgradeDirName('V2.0-Rc1', { recase: false }), 'V2.0-Rc1');
    assert.equal(upgradeDirName('some spaces', { recase: true }), 'some%20spaces');
    assert.equal(upgradeDirName('a/b', { recase: true }), 'a%2Fb');
    assert.equal(upgradeDirName('a;b,c?d', { recase: true }), 'a%3Bb%2Cc%3Fd');
    assert.equal(upgradeDirName('$&+:=@~_', { recase: true }), '$&+:=@~_');
    assert.equal(upgradeDirName('é', { recase: true }), '%C3%A9');
  });

  test('refuses ., .., empty names and control characters', () => {
    for (const name of ['.', '..', '', 'a\nb', 'tab\there']) {
      assert.throws(() => upgradeDirName(name, { recase: true }), { code: 'CHAINVISOR_BAD_PLAN_NAME' }, JSON.stringify(name));
    }
  });
});

describe('the current link', () => {
  let home: string;
  beforeEach(async () => {
    home = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-layout-'));
    await fs.mkdir(path.join(home, 'cosmovisor/upgrades/v2'), { recursive: true });
    await fs.mkdir(path.join(home, 'cosmovisor/genesis'), { recursive: true });
  });
  afterEach(async () => {
    await fs.rm(home, { recursive: true, force: true });
  });

  test('missing means genesis; switching writes a relative link and leaves no temporary files', async () => {
    const layout = layoutFor({ home, name: 'simd' });
    assert.equal(await readCurrentDir(layout), 'genesis');
    await switchCurrent(layout, 'genesis');
    await switchCurrent(layout, 'upgrades/v2');
    assert.equal(await fs.readlink(layout.currentLink), 'upgrades/v2');
    assert.deepEqual((await fs.readdir(layout.root)).sort(), ['current', 'genesis', 'upgrades']);
  });

  test("an absolute link written by cosmovisor is understood, with the plan it records", async () => {
    const layout = layoutFor({ home, name: 'simd' });
    await fs.symlink(path.join(layout.root, 'upgrades/v2'), layout.currentLink);
    await fs.writeFile(path.join(layout.root, 'upgrades/v2/upgrade-info.json'), '{"name":"v2","height":42}');
    assert.deepEqual(await readCurrent(layout), { dir: 'upgrades/v2', plan: { name: 'v2', height: 42, info: '' } });
  });

  test('a link pointing elsewhere, or a real folder, is refused with a hint', async () => {
    const layout = layoutFor({ home, name: 'simd' });
    await fs.symlink('/usr/bin', layout.currentLink);
    await assert.rejects(readCurrentDir(layout), { code: 'CHAINVISOR_CURRENT_OUTSIDE' });
    await fs.rm(layout.currentLink);
    await fs.mkdir(layout.currentLink);
    await assert.rejects(readCurrentDir(layout), { code: 'CHAINVISOR_CURRENT_NOT_LINK' });
  });
});
