import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { fileKey, loadConfig, renderDocsTable, renderExample, settingKeys, settings } from '../../src/config/index.js';
import { maxExact, parseBool, parseBytes, parseCount, parseDuration, parseFileName } from '../../src/config/values.js';

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

  test('a size, a count or a duration past 2^53 - 1 (bytes, units, ms) is refused, saying the limit', () => {
    const limit = (unit: string) => ({ ok: false, message: `must be at most 9007199254740991${unit}: a larger number cannot be held exactly` });
    assert.equal(maxExact, Number.MAX_SAFE_INTEGER);
    // The same digits, one rule: a size no longer turns them into 1.099511627776e+32 bytes.
    assert.deepEqual(parseBytes('99999999999999999999TiB'), limit(' bytes'));
    assert.deepEqual(parseBytes('99999999999999999999'), limit(' bytes'));
    assert.deepEqual(parseCount('99999999999999999999'), limit(''));
    assert.deepEqual(parseDuration('99999999999999999999h'), limit('ms'));
    assert.deepEqual(parseDuration(`${'9'.repeat(400)}s`), limit('ms'), 'Infinity is past the limit, not a syntax error');
    assert.deepEqual(parseBytes('9007199254740991'), { ok: true, value: 9007199254740991 });
    assert.deepEqual(parseBytes('9007199254740992'), limit(' bytes'));
    assert.deepEqual(parseBytes('8192TiB'), limit(' bytes'));
    assert.deepEqual(parseCount('9007199254740991'), { ok: true, value: 9007199254740991 });
    assert.deepEqual(parseCount('9007199254740992'), limit(''));
  });

  test('every numeric setting refuses a value past what it can mean, naming the setting and the limit', () => {
    const numeric = settingKeys.filter((key) => ['duration', 'count', 'bytes'].includes(settings[key].kind));
    assert.ok(numeric.length >= 15, numeric.join());
    for (const key of numeric) {
      const { env, kind } = settings[key];
      const value = `99999999999999999999${kind === 'duration' ? 'h' : kind === 'bytes' ? 'TiB' : ''}`;
      assert.throws(
        () => loadConfig({ env: { DAEMON_HOME: '/h', DAEMON_NAME: 'simd', UNSAFE_SKIP_BACKUP: 'true', [env]: value } }),
        (error: Error & { code?: string; exitCode?: number }) => {
          assert.equal(error.code, 'CHAINVISOR_CONFIG_INVALID');
          assert.equal(error.exitCode, 78);
          assert.match(error.message, new RegExp(`${env}="${value}": must be at most \\d+`));
          return true;
        },
        env,
      );
    }
  });

  test("durations are capped at Node's timer limit; a restart backoff past 60s is kept as written", () => {
    const load = (env: Record<string, string>) => loadConfig({ env: { DAEMON_HOME: '/h', DAEMON_NAME: 'simd', UNSAFE_SKIP_BACKUP: 'true', ...env } });
    assert.throws(
      () => load({ DAEMON_SHUTDOWN_GRACE: '597h' }),
      /DAEMON_SHUTDOWN_GRACE="597h": must be at most 2147483647ms \(about 24\.8 days; use 596h or less\)/,
    );
    assert.equal(load({ DAEMON_SHUTDOWN_GRACE: '596h' }).config.shutdownGrace, 596 * 3_600_000);
    // A value that worked before (waits of 2m) still loads: refusing it would stop the node at chainvisor's next start.
    assert.equal(load({ CHAINVISOR_RESTART_BACKOFF: '2m' }).config.restartBackoff, 120_000);
  });

  test('DAEMON_NAME is a file name run can use: not empty, no folder, no control character, at most 255 bytes of UTF-8', () => {
    for (const name of ['', 'bin/simd', '.', '..', 'simd\u0000x', 'simd\nx', 'simd\u007f', 'n'.repeat(256), 'é'.repeat(128)]) {
      assert.equal(parseFileName(name).ok, false, JSON.stringify(name));
    }
    assert.deepEqual(parseFileName('n'.repeat(300)), { ok: false, message: 'the name is 300 bytes long (UTF-8); a file name may have at most 255' });
    for (const name of ['simd', 'gaiad v2', 'n'.repeat(255), 'é'.repeat(127)]) assert.deepEqual(parseFileName(name), { ok: true, value: name });
    assert.deepEqual(parseFileName('', { optional: true }), { ok: true, value: '' }, 'COSMOVISOR_CUSTOM_PREUPGRADE may be unset');
    const load = (env: Record<string, string>) => loadConfig({ env: { DAEMON_HOME: '/h', UNSAFE_SKIP_BACKUP: 'true', ...env } });
    assert.throws(() => load({ DAEMON_NAME: 'n'.repeat(300) }), /DAEMON_NAME="n{300}": the name is 300 bytes long \(UTF-8\); a file name may have at most 255/);
  });

  test('a DAEMON_HOME and DAEMON_NAME whose upgrade paths would pass PATH_MAX are refused', () => {
    const deep = (bytes: number) => `/${Array.from({ length: Math.ceil(bytes / 200) }, () => 'd'.repeat(199)).join('/')}`.slice(0, bytes);
    const load = (home: string, name: string) => loadConfig({ env: { DAEMON_HOME: home, DAEMON_NAME: name, UNSAFE_SKIP_BACKUP: 'true' } });
    // home + /cosmovisor/upgrades/ (21) + a 255-byte folder + /bin/ (5) + the binary's temporary name (at most 255).
    assert.doesNotThrow(() => load(deep(3500), 'simd'));
    assert.throws(
      () => load(deep(3600), 'n'.repeat(255)),
      /DAEMON_NAME="n{255}": with DAEMON_HOME \(3600 bytes\) the longest path chainvisor makes, .*upgrades\/<upgrade folder, up to 255 bytes>\/bin\/.* is 4136 bytes, past the 4095 a path may have/,
    );
    assert.doesNotThrow(() => load(deep(3600), 'simd'), '3600 + 21 + 255 + 5 + 26 fits');
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

  test("docs/settings.md names every setting config.example.json leaves out, and the config file's CHAINVISOR_CONFIG", async () => {
    const example = JSON.parse(await fs.readFile(path.join(repo, 'config.example.json'), 'utf8')) as Record<string, string>;
    const doc = await fs.readFile(path.join(repo, 'docs', 'settings.md'), 'utf8');
    const prose = doc.slice(0, doc.indexOf('| variable | default | meaning |'));
    const left = settingKeys.filter((key) => !Object.hasOwn(example, fileKey(key))).map((key) => settings[key].env as string);
    assert.deepEqual(
      left.filter((env) => !prose.includes(`\`${env}\``)),
      [],
      'say in the text above the table of docs/settings.md why config.example.json leaves these out',
    );
    assert.match(prose, /`CHAINVISOR_CONFIG=<file>`/);
  });
});
