/** CHAINVISOR_NETWORK_RPC's entries (issue #32): what is accepted, and a refusal that never shows a credential. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadConfig, networkRpcUrls } from '../../src/config/index.js';

test('http, https and tcp (read as http) URLs, comma-separated; a base path and a query string are kept', () => {
  const parsed = networkRpcUrls(' https://rpc.example.com/cosmoshub/?key=k , tcp://10.0.0.5:26657,,http://[::1]:26657 ');
  assert.ok(parsed.ok);
  assert.deepEqual(
    parsed.value.map((u) => u.href),
    ['https://rpc.example.com/cosmoshub/?key=k', 'http://10.0.0.5:26657/', 'http://[::1]:26657/'],
  );
  assert.deepEqual(networkRpcUrls(''), { ok: true, value: [] });
});

test('an entry that is not an RPC URL is refused, named by its place and redacted', () => {
  const cases: [string, RegExp][] = [
    ['10.0.0.5:26657', /^\(10\.0\.0\.5:26657\) has no scheme; write http:\/\/10\.0\.0\.5:26657/],
    ['localhost:26657', /^\(localhost:26657\) has no scheme/],
    ['https://ok.example.com, not a url', /^entry 2 \(not a url\) is not a URL/],
    ['ftp://user:pa55@host/x', /^\(ftp:\/\/\*\*\*@host\/…\) uses ftp:/],
    ['unix:///var/run/rpc.sock', /uses unix:/],
    // A password whose % starts no escape: refused here (78), not a URIError at the first reading.
    ['http://ops:pa55%zz@127.0.0.1:26657', /^\(http:\/\/\*\*\*@127\.0\.0\.1:26657\/\): the user or password in the URL has a % that does not start an escape/],
  ];
  for (const [text, message] of cases) {
    const parsed = networkRpcUrls(text);
    assert.equal(parsed.ok, false, text);
    assert.match(parsed.ok ? '' : parsed.message, message);
    assert.doesNotMatch(parsed.ok ? '' : parsed.message, /pa55/);
  }
});

test('the configuration refuses a bad entry (78) with the value redacted, and the limits of the twin settings', () => {
  const base = { DAEMON_HOME: '/tmp/x', DAEMON_NAME: 'simd', UNSAFE_SKIP_BACKUP: 'true' };
  assert.throws(
    () => loadConfig({ env: { ...base, CHAINVISOR_NETWORK_RPC: 'gopher://u:s3cret@h:1/?k=s3cret' } }),
    (error: Error & { code?: string; exitCode?: number }) => {
      assert.equal(error.code, 'CHAINVISOR_CONFIG_INVALID');
      assert.equal(error.exitCode, 78);
      assert.match(error.message, /CHAINVISOR_NETWORK_RPC="gopher:\/\/\*\*\*@h:1\/…": \(gopher:\/\/\*\*\*@h:1\/…\) uses gopher:/);
      assert.doesNotMatch(error.message, /s3cret/);
      return true;
    },
  );
  const config = loadConfig({ env: base }).config;
  assert.deepEqual([config.networkRpc, config.twinCheck, config.twinBlocks, config.twinTimeout, config.twinWait], ['', 'on', 50, 3000, 0]);
  assert.throws(() => loadConfig({ env: { ...base, CHAINVISOR_TWIN_BLOCKS: '1001' } }), /CHAINVISOR_TWIN_BLOCKS="1001": must be at most 1000/);
  assert.throws(() => loadConfig({ env: { ...base, CHAINVISOR_TWIN_CHECK: 'maybe' } }), /expected one of: on, require, off/);
  assert.throws(() => loadConfig({ env: { ...base, CHAINVISOR_TWIN_TIMEOUT: '5m' } }), /CHAINVISOR_TWIN_TIMEOUT="5m": must be at most 1m/);
});
