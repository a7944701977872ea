import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { loadConfig, renderDocsTable, renderExample } from '../../src/config/index.js';
import { parseBool, parseBytes, parseDuration } from '../../src/config/values.js';

const repo = path.resolve(fileURLToPath(import.meta.url), '../../../..');

describe('setting values', () => {
  test('durations use Go syntax and refuse bare numbers with a hint', () => {
    assert.deepEqual(parseDuration('300ms'), { ok: true, value: 300 });
    assert.deepEqual(parseDuration('1m30s'), { ok: true, value: 90_000 });
    assert.deepEqual(parseDuration('1.5h'), { ok: true, value: 5_400_000 });
    assert.deepEqual(parseDuration('0'), { ok: true, value: 0 });
    assert.deepEqual(parseDuration('500us'), { ok: true, value: 0.5 });
    assert.deepEqual(parseDuration('5'), { ok: false, message: 'a duration needs a unit, for example "5ms" or "5s"' });
    for (const bad of ['5 s', 's', '1d', '-1s', '1s2']) assert.equal(parseDuration(bad).ok, false, bad);
  });

  test('booleans are true or false in any case, nothing else', () => {
    assert.deepEqual(parseBool('TRUE'), { ok: true, value: true });
    assert.deepEqual(parseBool('False'), { ok: true, value: false });
    assert.equal(parseBool('1').ok, false);
    assert.equal(parseBool('yes').ok, false);
  });

  test('sizes accept units', () => {
    assert.deepEqual(parseBytes('4GiB'), { ok: true, value: 4 * 2 ** 30 });
    assert.deepEqual(parseBytes('500MB'), { ok: true, value: 500e6 });
    assert.deepEqual(parseBytes('1024'), { ok: true, value: 1024 });
    assert.equal(parseBytes('lots').ok, false);
  });

  test('an empty variable means the default, as in cosmovisor', () => {
    const { config } = loadConfig({ env: { DAEMON_HOME: '/h', DAEMON_NAME: 'simd', DAEMON_POLL_INTERVAL: '', UNSAFE_SKIP_BACKUP: 'true' } });
    assert.equal(config.pollInterval, 300);
    assert.equal(config.dataBackupDir, '/h', 'DAEMON_DATA_BACKUP_DIR defaults to DAEMON_HOME');
    assert.equal(config.downloadMustHaveChecksum, true, 'chainvisor requires checksums by default');
  });

  test('a backup folder that does not exist is a configuration problem unless backups are skipped', () => {
    assert.throws(
      () => loadConfig({ env: { DAEMON_HOME: '/h', DAEMON_NAME: 'simd', DAEMON_DATA_BACKUP_DIR: '/no/such/dir' } }),
      /DAEMON_DATA_BACKUP_DIR="\/no\/such\/dir": the backup folder does not exist/,
    );
    assert.doesNotThrow(() =>
      loadConfig({ env: { DAEMON_HOME: '/h', DAEMON_NAME: 'simd', DAEMON_DATA_BACKUP_DIR: '/no/such/dir', UNSAFE_SKIP_BACKUP: 'true' } }),
    );
  });

  test('config.example.json and the settings table in docs/settings.md are generated from the schema and up to date', async () => {
    assert.equal(await fs.readFile(path.join(repo, 'config.example.json'), 'utf8'), renderExample(), "run 'chainvisor config --example > config.example.json'");
    const readme = await fs.readFile(path.join(repo, 'docs', 'settings.md'), 'utf8');
    assert.ok(
      readme.includes(renderDocsTable()),
      "run 'npm run build && node scripts/regen-docs.mjs' (or paste 'chainvisor config --docs' into docs/settings.md)",
    );
  });
});
