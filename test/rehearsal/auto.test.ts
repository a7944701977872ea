/**
 * CHAINVISOR_REHEARSE's scheduling (issue #19, item 5), with a stand-in for `chainvisor rehearse` that
 * records a report the way the real one does: an upgrade scheduled on chain is rehearsed once its binary
 * is installed, once per binary (again when it changes), one at a time, never when the height is
 * CHAINVISOR_STAGE_WARN_BLOCKS away or nearer (until the plan moves away); manual upgrades are not rehearsed.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { type Config, loadConfig } from '../../src/config/index.js';
import { layoutFor } from '../../src/home/layout/index.js';
import { startAutoRehearsal } from '../../src/rehearsal/index.js';
import { createEventBus } from '../../src/shared/events/index.js';
import { silentLogger } from '../../src/shared/log.js';
import { waitFor } from '../support/home.js';

/** Appends `<upgrade> start|end` to a journal around a 300 ms "rehearsal", then records a passed report for the binary's sha256. */
const standIn = `
const fs = require('node:fs'); const path = require('node:path'); const crypto = require('node:crypto');
const [journal, stateDir, binary, upgrade] = process.argv.slice(1);
fs.appendFileSync(journal, upgrade + ' start\\n');
setTimeout(() => {
  const sha = crypto.createHash('sha256').update(fs.readFileSync(binary)).digest('hex');
  const file = path.join(stateDir, 'rehearsals.json');
  let list = []; try { list = JSON.parse(fs.readFileSync(file, 'utf8')); } catch {}
  list = list.filter((r) => r.upgrade !== upgrade);
  list.push({ upgrade, result: 'passed', binary_sha256: sha, finished_at: new Date().toISOString() });
  fs.mkdirSync(stateDir, { recursive: true }); fs.writeFileSync(file, JSON.stringify(list));
  fs.appendFileSync(journal, upgrade + ' end\\n');
}, 300);
`;

test('one rehearsal per scheduled upgrade and binary, one at a time, not near the height, not for manual upgrades', async (t) => {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-auto-rehearsal-'));
  t.after(() => fs.rm(home, { recursive: true, force: true }));
  const layout = layoutFor({ home, name: 'simd' });
  const binary = path.join(layout.upgradesDir, 'v2', 'bin', 'simd');
  const journal = path.join(home, 'journal');
  await fs.writeFile(journal, '');
  const config: Config = { ...loadConfig({ env: { DAEMON_HOME: home, DAEMON_NAME: 'simd' } }).config, stageWarnBlocks: 100 };
  const bus = createEventBus();
  const auto = startAutoRehearsal({
    config,
    layout,
    logger: silentLogger(),
    bus,
    command: async (args) => [
      process.execPath,
      ['-e', standIn, journal, layout.stateDir, path.join(layout.upgradesDir, args[1] as string, 'bin', 'simd'), args[1] as string],
    ],
  });
  t.after(() => auto.stop());
  const lines = async () => (await fs.readFile(journal, 'utf8')).split('\n').filter(Boolean);
  const tick = async (height: number) => {
    bus.emit('chain-height', { text: '', data: { height } });
    await sleep(100);
  };

  bus.emit('upgrade-scheduled', { upgrade: { name: 'v2', height: 1000 }, text: '' });
  await tick(10);
  assert.deepEqual(await lines(), [], 'no binary installed yet');
  await fs.mkdir(path.dirname(binary), { recursive: true });
  await fs.writeFile(binary, 'one', { mode: 0o755 });
  for (let h = 11; h < 20; h++) await tick(h);
  // The stand-in is a process of its own: on a loaded machine its start alone can take a second.
  await waitFor(async () => (await lines()).length >= 2, 'the first rehearsal to end');
  for (let h = 20; h < 25; h++) await tick(h);
  await sleep(400);
  assert.deepEqual(await lines(), ['v2 start', 'v2 end'], 'once, and only one at a time');
  await fs.writeFile(binary, 'two, a new build', { mode: 0o755 });
  await tick(30);
  await waitFor(async () => (await lines()).length >= 4, 'the rehearsal of the new build to end');
  await tick(31);
  await sleep(400);
  assert.deepEqual(await lines(), ['v2 start', 'v2 end', 'v2 start', 'v2 end'], 'again for a changed binary');

  await fs.mkdir(path.join(layout.upgradesDir, 'v3', 'bin'), { recursive: true });
  await fs.writeFile(path.join(layout.upgradesDir, 'v3', 'bin', 'simd'), 'three', { mode: 0o755 });
  await tick(1000);
  bus.emit('upgrade-scheduled', { upgrade: { name: 'v3', height: 1100 }, text: '' });
  await tick(1000);
  bus.emit('upgrade-scheduled', { upgrade: { name: 'v4', height: 5000 }, text: '', data: { manual: true } });
  await tick(1001);
  await sleep(400);
  assert.equal((await lines()).length, 4, 'v3 is 100 blocks away: too near; v4 is a manual upgrade');

  // v3 moved far ahead on chain (issue #45): now there is time to rehearse it.
  bus.emit('upgrade-rescheduled', { upgrade: { name: 'v3', height: 3000 }, text: '', data: { from: 1100, info: '' } });
  await waitFor(async () => (await lines()).length >= 6, 'the rehearsal of v3, moved away');
  assert.deepEqual((await lines()).slice(4), ['v3 start', 'v3 end']);
});
