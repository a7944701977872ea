/**
 * The systemd unit shipped in docs/systemd/chainvisor.service: the README shows that very file, it
 * waits for the network, restarts on failure but not after the exits a restart cannot mend, and
 * `systemd-analyze verify` (where the machine has it) finds nothing to say about it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { execa } from 'execa';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const unitFile = path.join(repo, 'docs/systemd/chainvisor.service');

test('the README shows docs/systemd/chainvisor.service as it is', async () => {
  const [unit, readme] = await Promise.all([fs.readFile(unitFile, 'utf8'), fs.readFile(path.join(repo, 'README.md'), 'utf8')]);
  const shown = /\(docs\/systemd\/chainvisor\.service\)[^]*?```ini\n([^]*?)```/.exec(readme)?.[1];
  assert.equal(shown, unit, "the README's unit is the file's content");
});

test('the unit waits for the network and restarts on failure, except after 64, 78 and 84', async () => {
  const settings = (await fs.readFile(unitFile, 'utf8')).split('\n').filter((l) => /^\w+=/.test(l));
  for (const line of [
    'Wants=network-online.target',
    'After=network-online.target',
    'Restart=on-failure',
    'RestartPreventExitStatus=64 78 84',
    'KillMode=mixed',
  ])
    assert.ok(settings.includes(line), line);
  assert.ok(
    settings.some((l) => /^RestartSec=\d+s$/.test(l)),
    'RestartSec= set',
  );
});

test('systemd-analyze verify accepts the unit', async (t) => {
  const tool = await execa('systemd-analyze', ['--version'], { reject: false });
  if (tool.exitCode !== 0) {
    t.skip('systemd-analyze is not installed here (apt-get install systemd provides it)');
    return;
  }
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-unit-'));
  try {
    // verify also checks that ExecStart's program exists: this machine has no /usr/local/bin/chainvisor.
    const unit = (await fs.readFile(unitFile, 'utf8')).replace('ExecStart=/usr/local/bin/chainvisor ', `ExecStart=${process.execPath} `);
    await fs.writeFile(path.join(dir, 'chainvisor.service'), unit);
    const r = await execa('systemd-analyze', ['verify', path.join(dir, 'chainvisor.service')], { reject: false, all: true });
    assert.equal(r.exitCode, 0, r.all);
    // It warns, and still exits 0, on a value it ignores (`Restart=sometimes`): a clean file says nothing.
    assert.equal(r.all, '', 'systemd-analyze verify has nothing to say');
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});
