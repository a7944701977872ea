/**
 * The one redaction (issue #31): a download's URL keeps its path, a receiver's keeps at most a plain
 * first word of it, neither keeps credentials or a query; a text chainvisor did not write loses every
 * fragment of the secrets it echoes, raw, percent-decoded or percent-encoded.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { redactSecretUrl, redactText, redactUrl, scrubSecrets, secretsOf } from '../../src/shared/redact.js';

test("a download's URL keeps its path, never its credentials, query or fragment", () => {
  assert.equal(redactUrl('https://user:tok@releases.example/v2/simd.tar.gz?sig=x#frag'), 'https://***@releases.example/v2/simd.tar.gz?…');
  assert.equal(redactUrl('https://:only-password@releases.example/a'), 'https://***@releases.example/a');
  assert.equal(redactUrl('http://ops:s3cret@[2001:db8::5]:8080/simd'), 'http://***@[2001:db8::5]:8080/simd', 'an IPv6 host with credentials');
  assert.equal(redactUrl('file:///opt/simd?x=1'), 'file:///opt/simd?…');
  assert.equal(redactUrl('https://u:p@host:notaport/x?y'), 'https://***@host:notaport/x?…', 'not a URL: redacted by pattern');
  assert.equal(redactUrl('https://u:p/x@host/y'), 'https://***@host/y', 'a malformed authority leaks nothing either');
});

test("a receiver's URL: scheme, host, and a plain first word of its path when more follows", () => {
  assert.equal(redactSecretUrl('https://hooks.example/services/T0/B0/SECRET'), 'https://hooks.example/services/…');
  assert.equal(redactSecretUrl('https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX'), 'https://hooks.slack.com/services/…');
  assert.equal(redactSecretUrl('https://discord.com/api/webhooks/1234/tok-en_42'), 'https://discord.com/api/…');
  assert.equal(redactSecretUrl('https://ntfy.example/mysecrettopic'), 'https://ntfy.example/…', 'a lone segment may be the secret itself');
  assert.equal(redactSecretUrl('https://hooks.example/SeCrEtToKeN/x'), 'https://hooks.example/…', 'a mixed-case segment is not a plain word');
  assert.equal(redactSecretUrl('https://hooks.example/t0ken42/x'), 'https://hooks.example/…', 'nor one with digits');
  assert.equal(redactSecretUrl('https://hooks.example/%73ervices/x'), 'https://hooks.example/…', 'nor a percent-encoded one');
  assert.equal(redactSecretUrl('https://api.telegram.org'), 'https://api.telegram.org/');
  assert.equal(redactSecretUrl('https://events.example/?routing_key=abc'), 'https://events.example/…');
  assert.equal(redactSecretUrl('http://ops:pw@[::1]:9000/hook/abc'), 'http://***@[::1]:9000/hook/…');
  assert.equal(redactSecretUrl('https://ops:pw@host name/services/x'), 'https://***@host name/…', 'not a URL: no credentials, no path');
});

test('a text: only URLs with credentials or a query change; the rest is left as written', () => {
  assert.equal(
    redactText('connect ECONNREFUSED to http://u:p@proxy:3128 (then https://host/a?sig=1, then http://127.0.0.1:9)'),
    'connect ECONNREFUSED to http://***@proxy:3128/ (then https://host/a?…, then http://127.0.0.1:9)',
  );
  assert.equal(redactText('what? nothing here'), 'what? nothing here');
});

test('an answer that echoes a Slack path, raw, decoded or encoded, or a part of it, shows none of it', () => {
  const url = new URL('https://hooks.example/services/T000/B000/%73lacksecret42');
  const secrets = secretsOf(url);
  const echoes = [
    'Cannot POST /services/T000/B000/%73lacksecret42',
    'Cannot POST /services/T000/B000/slacksecret42',
    'token slacksecret42 is revoked',
    'no such webhook: services%2FT000%2FB000%2Fslacksecret42',
  ];
  for (const echo of echoes) {
    const scrubbed = scrubSecrets(echo, secrets);
    assert.doesNotMatch(scrubbed, /slacksecret42|%73lacksecret42|T000|B000/, `${echo} → ${scrubbed}`);
  }
  assert.equal(scrubSecrets('invalid_payload', secrets), 'invalid_payload', 'the rest of the answer is kept');
});

test('credentials, a query and extra secrets are fragments too; short ones are left to the URL pattern', () => {
  const url = new URL('https://ops:p%40ssword@tg.example/tgapi?key=querysecret');
  const secrets = secretsOf(url, ['123456:botsecret42', 'botsecret42']);
  const scrubbed = scrubSecrets('login p@ssword failed for key=querysecret, bot 123456:botsecret42 (botsecret42)', secrets);
  assert.doesNotMatch(scrubbed, /p@ssword|p%40ssword|querysecret|botsecret42/);
  assert.equal(scrubSecrets('a', secretsOf(new URL('https://a:b@h/x'))), 'a', 'a one-letter password does not eat every "a"');
  assert.equal(scrubSecrets('see https://a:b@h/x', []), 'see https://***@h/x');
});

test('redaction removes credentials and query strings', () => {
  assert.equal(
    redactUrl('https://user:tok@dl.example.com/v2/simd.tar.gz?X-Amz-Signature=abc&checksum=sha256:00'),
    'https://***@dl.example.com/v2/simd.tar.gz?…',
  );
  assert.equal(redactUrl('https://dl.example.com/simd'), 'https://dl.example.com/simd');
  assert.equal(redactUrl('not a url //user:pw@host/x?sig=1'), 'not a url //***@host/x?…');
});
