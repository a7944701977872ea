/**
 * Which proxy a URL goes through, by Go's rules (golang.org/x/net/http/httpproxy): the variables and
 * their spellings, NO_PROXY's entry kinds, the loopback bypass, and what `chainvisor config` shows.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { describeProxies, proxyFor, proxyProblems, proxySettings } from '../../../src/shared/net/index.js';

const via = (url: string, env: Record<string, string>): string | undefined => proxyFor(new URL(url), proxySettings(env))?.href;

test('HTTPS_PROXY serves https URLs, HTTP_PROXY http URLs', () => {
  const env = { HTTPS_PROXY: 'http://secure-proxy:3128', HTTP_PROXY: 'http://plain-proxy:8080' };
  assert.equal(via('https://releases.example.test/simd', env), 'http://secure-proxy:3128/');
  assert.equal(via('http://releases.example.test/simd', env), 'http://plain-proxy:8080/');
  assert.equal(via('https://releases.example.test/simd', { HTTP_PROXY: 'http://plain-proxy:8080' }), undefined, 'HTTP_PROXY does not serve https');
});

test('the upper-case name wins; the lower-case one is read when the upper-case one is unset or empty', () => {
  assert.equal(via('https://a.example/', { HTTPS_PROXY: 'http://upper:1', https_proxy: 'http://lower:2' }), 'http://upper:1/');
  assert.equal(via('https://a.example/', { HTTPS_PROXY: '', https_proxy: 'http://lower:2' }), 'http://lower:2/');
  assert.equal(via('https://a.example/', { https_proxy: 'http://lower:2' }), 'http://lower:2/');
  assert.equal(via('http://a.example/', { http_proxy: 'http://lower:3' }), 'http://lower:3/');
  assert.equal(
    via('https://a.example/', { NO_PROXY: 'b.example', no_proxy: 'a.example', HTTPS_PROXY: 'http://p:1' }),
    'http://p:1/',
    'NO_PROXY wins over no_proxy',
  );
  assert.equal(via('https://a.example/', { no_proxy: 'a.example', HTTPS_PROXY: 'http://p:1' }), undefined);
});

test('a proxy without a scheme is http://; https and socks5 proxies are accepted', () => {
  assert.equal(via('https://a.example/', { HTTPS_PROXY: 'proxy.corp:3128' }), 'http://proxy.corp:3128/');
  assert.equal(via('https://a.example/', { HTTPS_PROXY: 'user:pw@proxy.corp:3128' }), 'http://user:pw@proxy.corp:3128/');
  assert.equal(via('https://a.example/', { HTTPS_PROXY: 'https://proxy.corp:443' }), 'https://proxy.corp/');
  assert.equal(via('https://a.example/', { HTTPS_PROXY: 'socks5://proxy.corp:1080' }), 'socks5://proxy.corp:1080');
});

test('localhost and loopback addresses are never proxied, whatever NO_PROXY says', () => {
  const env = { HTTPS_PROXY: 'http://p:1', HTTP_PROXY: 'http://p:1' };
  for (const url of ['https://localhost:8443/x', 'http://127.0.0.1:9000/x', 'http://127.8.9.10/x', 'https://[::1]:8443/x', 'http://[::ffff:127.0.0.1]/x']) {
    assert.equal(via(url, env), undefined, url);
  }
  assert.equal(via('https://localhost.example/x', env), 'http://p:1/', 'only the name localhost itself');
});

test('NO_PROXY: a domain matches itself and its subdomains; a leading dot or *. matches subdomains only', () => {
  const env = (noProxy: string) => ({ HTTPS_PROXY: 'http://p:1', NO_PROXY: noProxy });
  assert.equal(via('https://foo.com/', env('foo.com')), undefined);
  assert.equal(via('https://bar.foo.com/', env('foo.com')), undefined);
  assert.equal(via('https://barfoo.com/', env('foo.com')), 'http://p:1/', 'not a mere suffix of the name');
  assert.equal(via('https://y.com/', env('.y.com')), 'http://p:1/');
  assert.equal(via('https://x.y.com/', env('.y.com')), undefined);
  assert.equal(via('https://y.com/', env('*.y.com')), 'http://p:1/');
  assert.equal(via('https://x.y.com/', env('*.y.com')), undefined);
  assert.equal(via('https://FOO.com/', env(' Foo.COM ')), undefined, 'case and spaces do not matter');
  assert.equal(via('https://other.example/', env('foo.com, ,other.example')), undefined, 'a comma list; empty entries ignored');
});

test('NO_PROXY: host:port, IPs, [IPv6]:port and CIDR; * turns proxying off', () => {
  const env = (noProxy: string) => ({ HTTPS_PROXY: 'http://p:1', HTTP_PROXY: 'http://p:1', NO_PROXY: noProxy });
  assert.equal(via('https://foo.com/', env('foo.com:443')), undefined, 'the default port counts');
  assert.equal(via('https://foo.com:8443/', env('foo.com:443')), 'http://p:1/');
  assert.equal(via('http://10.1.2.3/', env('10.1.2.3')), undefined);
  assert.equal(via('http://10.1.2.4/', env('10.1.2.3')), 'http://p:1/', 'an IP matches itself, as in Go');
  assert.equal(via('http://10.1.2.3:8080/', env('10.1.2.3:80')), 'http://p:1/');
  assert.equal(via('http://10.1.2.3/', env('10.1.2.3:80')), undefined);
  assert.equal(via('http://10.200.0.1/', env('10.0.0.0/8')), undefined);
  assert.equal(via('http://11.0.0.1/', env('10.0.0.0/8')), 'http://p:1/');
  assert.equal(via('http://[2001:db8::5]/', env('2001:db8::/32')), undefined);
  assert.equal(via('http://[2001:db8::5]:8080/', env('[2001:db8::5]:8080')), undefined);
  assert.equal(via('https://anything.example/', env('*')), undefined);
  assert.equal(via('http://10.9.9.9/', env('*')), undefined);
});

test('a proxy value that is not a URL is a problem, shown without what could be credentials', () => {
  const settings = proxySettings({ HTTPS_PROXY: 'http://exa mple:99', https_proxy: 'http://fine:1' });
  const problems = proxyProblems(settings);
  assert.equal(problems.length, 1);
  assert.equal(problems[0]?.setting, 'HTTPS_PROXY');
  assert.match(problems[0]?.message ?? '', /not a proxy URL/);
  assert.equal(proxyFor(new URL('https://a.example/'), settings), undefined, 'an unusable value proxies nothing');
  const secret = proxyProblems(proxySettings({ HTTP_PROXY: 'ftp://user:hunter2@proxy:21' }));
  assert.equal(secret.length, 1);
  assert.match(secret[0]?.message ?? '', /ftp:\/\/ proxy is not supported/);
  assert.doesNotMatch(JSON.stringify(secret), /hunter2/);
});

test('what chainvisor config shows: the proxy in effect, never its credentials', () => {
  const lines = describeProxies(proxySettings({ HTTPS_PROXY: 'http://alice:s3cr%40t@proxy.corp:3128', no_proxy: '.corp.example,10.0.0.0/8' }));
  const text = lines.join('\n');
  assert.match(text, /proxy for https\s+http:\/\/\*\*\*@proxy\.corp:3128 \[env HTTPS_PROXY\]/);
  assert.match(text, /proxy for http\s+direct \(no HTTP_PROXY\)/);
  assert.match(text, /no proxy for\s+localhost, loopback addresses, \.corp\.example,10\.0\.0\.0\/8 \[env no_proxy\]/);
  assert.doesNotMatch(text, /alice|s3cr/);
});

test("NO_PROXY entries with an empty port match any port, as Go's net.SplitHostPort reads them (issue #31)", () => {
  const env = (noProxy: string) => ({ HTTPS_PROXY: 'http://p:1', HTTP_PROXY: 'http://p:1', NO_PROXY: noProxy });
  assert.equal(via('https://foo.com/', env('foo.com:')), undefined, 'foo.com: goes direct');
  assert.equal(via('https://bar.foo.com:8443/', env('foo.com:')), undefined);
  assert.equal(via('http://10.1.2.3:8080/', env('10.1.2.3:')), undefined);
  assert.equal(via('http://[2001:db8::5]:8080/', env('[2001:db8::5]:')), undefined);
  assert.equal(via('https://foo.com/', env('foo.com:abc')), 'http://p:1/', 'a port that is not a number matches no URL');
  assert.equal(via('https://foo.com/', env('foo.com:443:1')), 'http://p:1/', 'two colons: a host that matches nothing');
  assert.equal(via('https://foo.com/', env(':443')), 'http://p:1/', 'no host: ignored');
  assert.equal(via('http://[2001:db8::5]/', env('2001:db8::5')), undefined, 'a bare IPv6 address has no port');
});

test('proxy credentials that cannot be decoded or sent are problems, never shown (issue #31)', () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ HTTPS_PROXY: 'http://ops:100%zz@proxy.corp:3128' }, /% that does not start an escape/],
    [{ HTTP_PROXY: 'http://100%zz:pw@proxy.corp:3128' }, /% that does not start an escape/],
    [{ HTTPS_PROXY: 'socks5://ops@gw.corp:1080' }, /takes a user and a password together/],
    [{ HTTPS_PROXY: 'socks5://:100pw@gw.corp:1080' }, /takes a user and a password together/],
    [{ HTTPS_PROXY: `socks5://ops:${'p'.repeat(256)}@gw.corp:1080` }, /at most 255 bytes/],
  ];
  for (const [env, message] of cases) {
    const settings = proxySettings(env);
    const problems = proxyProblems(settings);
    assert.equal(problems.length, 1, JSON.stringify(env));
    assert.match(problems[0]?.message ?? '', message);
    assert.doesNotMatch(JSON.stringify(problems), /100%zz|100pw|ppppp/);
    assert.match(describeProxies(settings).join('\n'), /unusable value in/);
  }
  assert.deepEqual(proxyProblems(proxySettings({ HTTPS_PROXY: 'socks5://ops:pw@gw.corp:1080' })), [], 'a SOCKS5 login is fine');
});
