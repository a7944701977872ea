/** The scheme policy of a download's URL: https anywhere, http to loopback only, file:// when allowed. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { checkUrlAllowed, isLoopbackHost } from '../../src/download/index.js';

test('loopback addresses', () => {
  for (const host of ['localhost', 'LOCALHOST', 'a.localhost', '127.0.0.1', '127.10.0.3', '[::1]', '[::ffff:7f00:1]']) assert.ok(isLoopbackHost(host), host);
  for (const host of ['example.com', '10.0.0.1', '128.0.0.1', '[::2]', '127.0.0.1.nip.io', '[::ffff:a00:1]']) assert.ok(!isLoopbackHost(host), host);
});

test('the policy: https anywhere, http only to loopback unless allowed, file:// only when allowed', () => {
  const strict = { allowInsecureHttp: false, allowFileUrls: false };
  checkUrlAllowed(new URL('https://example.com/x'), strict);
  checkUrlAllowed(new URL('http://127.0.0.1:8080/x'), strict);
  assert.throws(() => checkUrlAllowed(new URL('http://example.com/x'), strict), { code: 'CHAINVISOR_URL_REFUSED', hint: /CHAINVISOR_ALLOW_INSECURE_HTTP/ });
  checkUrlAllowed(new URL('http://example.com/x'), { ...strict, allowInsecureHttp: true });
  assert.throws(() => checkUrlAllowed(new URL('file:///tmp/x'), strict), { code: 'CHAINVISOR_URL_REFUSED', hint: /CHAINVISOR_ALLOW_FILE_URLS/ });
  checkUrlAllowed(new URL('file:///tmp/x'), { ...strict, allowFileUrls: true });
  assert.throws(() => checkUrlAllowed(new URL('ftp://example.com/x'), { allowInsecureHttp: true, allowFileUrls: true }), { code: 'CHAINVISOR_URL_REFUSED' });
});
