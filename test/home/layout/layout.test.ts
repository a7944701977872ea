import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { layoutFor, readCurrent, readCurrentDir, removeLeftoverSwitchFiles, switchCurrent, upgradeDirName } from '../../../src/home/layout/index.js';

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

  test('a name whose folder would be over 255 bytes is refused with a hint about the proposal, not the home', () => {
    assert.equal(upgradeDirName('a'.repeat(255), { recase: true }), 'a'.repeat(255));
    assert.equal(upgradeDirName('升'.repeat(28), { recase: true }).length, 252);
    for (const name of ['a'.repeat(256), '升'.repeat(30)]) {
      assert.throws(
        () => upgradeDirName(name, { recase: true }),
        (error: Error & { code?: string; hint?: string }) => {
          assert.equal(error.code, 'CHAINVISOR_BAD_PLAN_NAME');
          assert.match(error.message, /makes a folder name of (256|270) bytes under upgrades\/, more than the 255 a file name may have/);
          assert.match(error.hint ?? '', /comes from the chain's upgrade proposal/);
          assert.doesNotMatch(error.hint ?? '', /DAEMON_HOME or DAEMON_NAME/);
          return true;
        },
      );
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

  test('what an interrupted switch left is removed at start unless a live process made it just now; current is untouched', async () => {
    const layout = layoutFor({ home, name: 'simd' });
    await switchCurrent(layout, 'genesis');
    // A pid that cannot be running (above the kernel's pid_max of 4194304), a live one, this process's own
    // (a container gives chainvisor the same pid at every start), a regular file where a link was expected.
    const dead = path.join(layout.root, '.current.tmp-99999999-0a1b2c3d');
    const live = path.join(layout.root, `.current.tmp-${process.ppid}-0a1b2c3d`);
    const own = path.join(layout.root, `.current.tmp-${process.pid}-0a1b2c3d`);
    const notLink = path.join(layout.root, '.current.tmp-99999998-0a1b2c3d');
    const record = path.join(layout.root, 'upgrades/v2/.upgrade-info.json.tmp-99999999-0a1b2c3d');
    const liveRecord = path.join(layout.root, `upgrades/v2/.upgrade-info.json.tmp-${process.ppid}-0a1b2c3d`);
    const oldLive = path.join(layout.root, `.current.tmp-${process.ppid}-0e0e0e0e`);
    for (const link of [dead, live, own, oldLive]) await fs.symlink('upgrades/v2', link);
    await fs.writeFile(notLink, 'operator data');
    await fs.writeFile(record, '{"name":"v2","height":10}');
    await fs.writeFile(liveRecord, '{"name":"v2","height":10}');
    // Made by a live pid, but two minutes ago: a leftover of a process that reused the pid.
    const twoMinutesAgo = new Date(Date.now() - 120_000);
    await fs.lutimes(oldLive, twoMinutesAgo, twoMinutesAgo);
    assert.deepEqual((await removeLeftoverSwitchFiles(layout)).sort(), [dead, oldLive, own, record].sort());
    assert.deepEqual(
      (await fs.readdir(layout.root)).sort(),
      ['.current.tmp-99999998-0a1b2c3d', `.current.tmp-${process.ppid}-0a1b2c3d`, 'current', 'genesis', 'upgrades'].sort(),
    );
    assert.deepEqual(await fs.readdir(path.join(layout.root, 'upgrades/v2')), [path.basename(liveRecord)]);
    assert.equal(await fs.readlink(layout.currentLink), 'genesis');
  });

  test('an absolute link written by cosmovisor is understood, with the plan it records', async () => {
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
