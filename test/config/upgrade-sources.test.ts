/** CHAINVISOR_UPGRADE_SOURCES and its companions (issue #34): what `config` accepts, and every problem refused at once (exit 78), never at the halt. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadConfig, upgradeSourceList } from '../../src/config/index.js';
import { ConfigError } from '../../src/shared/errors/index.js';

const base = { DAEMON_HOME: '/tmp/home', DAEMON_NAME: 'simd', UNSAFE_SKIP_BACKUP: 'true' };

test('the default is the plan alone, with a quorum of 1', () => {
  const { config } = loadConfig({ env: base });
  assert.equal(config.upgradeSources, 'plan');
  assert.deepEqual(upgradeSourceList(config.upgradeSources), ['plan']);
  assert.equal(config.checksumQuorum, 1);
  assert.equal(config.registryUrl, '');
});

test('a list in order, spaces and case forgiven; each URL given', () => {
  const { config } = loadConfig({
    env: {
      ...base,
      CHAINVISOR_UPGRADE_SOURCES: ' Registry , plan,chain-registry',
      CHAINVISOR_REGISTRY_URL: 'file:///etc/chainvisor/registry.json',
      CHAINVISOR_CHAIN_REGISTRY_URL: 'https://example.com/versions.json',
      CHAINVISOR_CHECKSUM_QUORUM: '3',
    },
  });
  assert.deepEqual(upgradeSourceList(config.upgradeSources), ['registry', 'plan', 'chain-registry']);
});

test('every problem at once: an unknown or repeated source, a missing URL, a quorum no list can meet', () => {
  const refused = (env: Record<string, string>): string[] => {
    try {
      loadConfig({ env: { ...base, ...env } });
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      return error.problems.map((p) => `${p.setting}: ${p.message}`);
    }
    assert.fail('accepted');
  };
  assert.match(refused({ CHAINVISOR_UPGRADE_SOURCES: 'plan,registy' }).join('\n'), /unknown source "registy"/);
  assert.match(refused({ CHAINVISOR_UPGRADE_SOURCES: 'plan,plan' }).join('\n'), /plan is listed twice/);
  const both = refused({ CHAINVISOR_UPGRADE_SOURCES: 'plan,registry,chain-registry', CHAINVISOR_CHECKSUM_QUORUM: '4' });
  assert.deepEqual(both.length, 3, both.join('\n'));
  assert.match(both.join('\n'), /CHAINVISOR_REGISTRY_URL: is required: CHAINVISOR_UPGRADE_SOURCES names registry/);
  assert.match(both.join('\n'), /CHAINVISOR_CHAIN_REGISTRY_URL: is required/);
  assert.match(both.join('\n'), /CHAINVISOR_CHECKSUM_QUORUM: is more than the 3 source\(s\)/);
  assert.match(refused({ CHAINVISOR_CHECKSUM_QUORUM: '0' }).join('\n'), /must be at least 1/);
  const ftp = refused({ CHAINVISOR_UPGRADE_SOURCES: 'registry', CHAINVISOR_REGISTRY_URL: 'ftp://user:pa55@host/r.json' }).join('\n');
  assert.match(ftp, /expected an https:\/\/ URL/);
});
