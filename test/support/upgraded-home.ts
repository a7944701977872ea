/** A home after an upgrade with its backup recorded, for the tests of `chainvisor restore`. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';

import { makeDataTree } from './data-tree.js';
import type { TestHome } from './home.js';

export function stateJson(height: number, round = 0, step = 3): string {
  return JSON.stringify({ height: String(height), round, step, signature: 'c2ln', signbytes: 'ab' });
}

/**
 * A home after an upgrade to v2: genesis and v2 installed, `current` → v2, data/ signed up to height
 * 140, and the backup made at the halt for v2 (height 100, signed up to 99) recorded in backups.json.
 */
export async function upgradedHome(t: TestHome, options: { recordCurrent?: boolean } = {}): Promise<{ backup: string }> {
  await fs.mkdir(path.join(t.home, 'config'), { recursive: true });
  await fs.writeFile(path.join(t.home, 'config', 'genesis.json'), JSON.stringify({ chain_id: 'restore-1' }));
  await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 100 })]);
  await t.cliOk(['add-upgrade', 'v2', await t.fakeNode({ label: 'v2', runMs: 100 })]);
  const data = path.join(t.home, 'data');
  await makeDataTree(data);
  await fs.writeFile(path.join(data, 'priv_validator_state.json'), stateJson(99));
  await fs.writeFile(path.join(data, 'upgrade-info.json'), JSON.stringify({ name: 'v2', height: 100 }));
  const backup = path.join(t.home, 'data-backup-2026-1-1');
  execFileSync('cp', ['-a', data, backup]);
  // The switch to v2 (its plan recorded beside it), then v2 runs on and signs further.
  await fs.writeFile(path.join(t.home, 'cosmovisor', 'upgrades', 'v2', 'upgrade-info.json'), JSON.stringify({ name: 'v2', height: 100 }));
  await fs.rm(path.join(t.home, 'cosmovisor', 'current'), { force: true });
  await fs.symlink('upgrades/v2', path.join(t.home, 'cosmovisor', 'current'));
  await fs.writeFile(path.join(data, 'priv_validator_state.json'), stateJson(140, 1, 2));
  await fs.writeFile(path.join(data, 'application.db', '000007.ldb'), 'written by v2');
  await fs.writeFile(path.join(data, 'application.db', 'CURRENT'), 'MANIFEST-000009\n');
  const record = {
    upgrade: 'v2',
    height: 100,
    path: backup,
    dataDir: data,
    mode: 'copy',
    bytes: 1,
    files: 1,
    durationSeconds: 0.1,
    time: '2026-01-01T00:00:00.000Z',
    ...(options.recordCurrent === false ? {} : { current: 'genesis' }),
  };
  await fs.mkdir(path.join(t.home, 'cosmovisor', '.chainvisor'), { recursive: true });
  await fs.writeFile(path.join(t.home, 'cosmovisor', '.chainvisor', 'backups.json'), JSON.stringify([record]));
  return { backup };
}
