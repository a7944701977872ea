/**
 * A user and password in a URL (issue #31): decoded once, sent as Basic, and a `%` that starts no
 * escape said plainly instead of a URIError.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { basicAuthorization, credentialsProblem, splitCredentials } from '../../../src/shared/net/index.js';

test('credentials leave the URL decoded; a URL without them has none', () => {
  const split = splitCredentials(new URL('https://ops:p%40ss%3Aword@[2001:db8::5]:8443/hook?x=1'));
  assert.ok(split.ok);
  assert.equal(split.url.href, 'https://[2001:db8::5]:8443/hook?x=1');
  assert.deepEqual(split.credentials, { user: 'ops', password: 'p@ss:word' });
  assert.equal(basicAuthorization({ user: 'ops', password: 'p@ss:word' }), `Basic ${Buffer.from('ops:p@ss:word').toString('base64')}`);
  const bare = splitCredentials(new URL('https://hooks.example/x'));
  assert.ok(bare.ok);
  assert.equal(bare.credentials, undefined);
});

test('a % that starts no escape, in the user or the password, is a problem, not a URIError', () => {
  for (const url of ['http://ops:100%zz@proxy:3128', 'http://100%:pw@proxy:3128', 'https://ops:%E0%A4%A@hooks.example/x']) {
    assert.deepEqual(splitCredentials(new URL(url)), { ok: false, problem: credentialsProblem }, url);
  }
});
