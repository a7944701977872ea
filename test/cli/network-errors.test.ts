/**
 * Network failures the outside campaign of issue #31 met, through the `chainvisor` command (and, in
 * CI, the release executable): each was "unexpected error (this is a bug)" and was not retried where a
 * retry is right. Now each is the network's doing (retried), final, or the operator's own setting
 * (refused at start with 78, or named with the setting): a proxy password with a bad %-escape, a proxy
 * that garbles the tunnel, https sent to an http port, a 100 KB response head, a SOCKS5 proxy with a
 * login, an https proxy whose own certificate is untrusted, `NO_PROXY=host:` (an empty port). Plus
 * what an attacker or a careless operator would try next: an Info URL with a bad %-escape, a wrong
 * SOCKS5 login, a SOCKS5 proxy that cannot reach the host, a socks5:// variable naming an http proxy, a
 * redirect to a URL with credentials, a body that stops mid-way, an answer that trickles.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { goodArchives, gzip, tar } from '../../scripts/make-hostile-archives.js';
import { hostPlatform } from '../../src/download/index.js';
import { binariesInfo, withChecksum } from '../support/download-kit.js';
import { fakeNodeScript, plan } from '../support/fake-node.js';
import { type FaultServer, startFaultServer } from '../support/fault-server.js';
import { makeHome, type TestHome } from '../support/home.js';
import { type ProxyServer, type ProxyServerOptions, startProxyServer } from '../support/proxy-server.js';
import { startSocks5Server } from '../support/socks5-server.js';
import { testCa } from '../support/tls.js';

const tarGz = goodArchives('simd').tarGz?.data as Buffer;
const hosts = { 'releases.example.test': '127.0.0.1' };

interface Setup {
  home: TestHome;
  release: FaultServer;
  caFile: string;
  /** The Info naming `path` on the release server (releases.example.test, reachable only through a proxy). */
  info(path?: string): string;
}

async function setup(t: TestContext, options: { tls?: boolean } = {}): Promise<Setup> {
  const home = await makeHome({ CHAINVISOR_DOWNLOAD_RETRIES: '1', CHAINVISOR_DOWNLOAD_TIMEOUT: '2s' });
  t.after(() => home.cleanup());
  const release = await startFaultServer({ tls: options.tls ?? true, name: 'releases.example.test' });
  t.after(() => release.close());
  release.route('/simd.tar.gz', { body: tarGz });
  const caFile = path.join(home.root, 'corporate-ca.pem');
  await fs.writeFile(caFile, testCa);
  const info = (file = '/simd.tar.gz') => binariesInfo({ [hostPlatform()]: withChecksum(release.url(file), tarGz) });
  return { home, release, caFile, info };
}

async function proxy(t: TestContext, options: Partial<ProxyServerOptions> = {}): Promise<ProxyServer> {
  const p = await startProxyServer({ hosts, ...options });
  t.after(() => p.close());
  return p;
}

function assertNoBug(output: string): void {
  assert.doesNotMatch(output, /this is a bug|unexpected error|\n\s+at /);
}

test('a proxy password with a bad %-escape: config, run and check-plan refuse it with 78, without showing it', async (t) => {
  const s = await setup(t);
  await s.home.cliOk(['init', await s.home.fakeNode({ label: 'genesis', runMs: 100 })]);
  const env = { HTTPS_PROXY: 'http://ops:100%zz@proxy.corp.example:3128', DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true' };
  for (const args of [['config'], ['run', 'start'], ['check-plan', '--info', s.info()]]) {
    const r = await s.home.cli(args, env);
    assert.equal(r.exitCode, 78, `${args[0]}: ${r.stderr}`);
    assert.match(r.stderr, /HTTPS_PROXY=".*": the user or password in the URL has a % that does not start an escape/);
    assert.doesNotMatch(r.stdout + r.stderr, /100%zz/);
    assertNoBug(r.stderr);
  }
  assert.deepEqual(await s.home.journalLines(), [], 'the node never started');
});

test('an Info URL whose credentials have a bad %-escape: the Info is invalid, not a bug, and the password is not shown', async (t) => {
  const s = await setup(t);
  const info = binariesInfo({ [hostPlatform()]: withChecksum(s.release.url('/simd.tar.gz').replace('https://', 'https://ops:100%zz@'), tarGz) });
  const r = await s.home.cli(['check-plan', '--info', info]);
  assert.equal(r.exitCode, 79, r.stderr);
  assert.match(r.stdout + r.stderr, /code: CHAINVISOR_INFO_INVALID/);
  assert.doesNotMatch(r.stdout + r.stderr, /100%zz/);
  assertNoBug(r.stderr);
});

test('a proxy that garbles the tunnel, and https sent to an http port: the network, retried', async (t) => {
  const s = await setup(t);
  const garbling = await proxy(t, { garbleTunnel: true });
  const garbled = await s.home.cli(['check-plan', '--info', s.info()], { HTTPS_PROXY: garbling.url, SSL_CERT_FILE: s.caFile });
  assert.equal(garbled.exitCode, 79, garbled.stderr);
  assert.match(garbled.stdout + garbled.stderr, /failed after 2 attempts: the TLS handshake failed: what answered does not speak TLS/);
  assert.equal(garbling.requests.length, 2, 'retried');
  assertNoBug(garbled.stderr);

  const plain = await setup(t, { tls: false });
  const info = binariesInfo({
    [hostPlatform()]: withChecksum(plain.release.url('/simd.tar.gz').replace('http:', 'https:').replace('releases.example.test', '127.0.0.1'), tarGz),
  });
  const wrong = await plain.home.cli(['check-plan', '--info', info]);
  assert.equal(wrong.exitCode, 79, wrong.stderr);
  assert.match(wrong.stdout + wrong.stderr, /failed after 2 attempts: .*ERR_SSL_WRONG_VERSION_NUMBER/);
  assertNoBug(wrong.stderr);
});

test('a response head of 100 KB: retried, then the download fails (79) in check-plan and in run', async (t) => {
  const s = await setup(t, { tls: false });
  s.release.route('/big.tar.gz', { always: { kind: 'big-head', bytes: 100 * 1024 } });
  const local = (url: string) => url.replace('releases.example.test', '127.0.0.1');
  const info = binariesInfo({ [hostPlatform()]: withChecksum(local(s.release.url('/big.tar.gz')), tarGz) });
  const checked = await s.home.cli(['check-plan', '--info', info]);
  assert.equal(checked.exitCode, 79, checked.stderr);
  assert.match(checked.stdout + checked.stderr, /failed after 2 attempts: the response head is larger than 16 KiB/);
  assertNoBug(checked.stderr);

  const genesis = await s.home.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10, info), style: 'exit' } });
  await s.home.cliOk(['init', genesis]);
  const run = await s.home.cli(['run', 'start'], { DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true' });
  assert.equal(run.exitCode, 79, run.stderr);
  assert.match(run.stderr, /code: CHAINVISOR_DOWNLOAD_FAILED/);
  assert.equal(s.release.requestsTo('/big.tar.gz').length, 4, 'two attempts each');
  assert.equal(await s.home.current(), 'genesis');
  assertNoBug(run.stderr);
});

test('a SOCKS5 proxy with a login: check-plan and run download through it; a missing or wrong login, an unreachable host, a port that is not SOCKS5: said plainly', async (t) => {
  const s = await setup(t);
  const socks = await startSocks5Server({ hosts, credentials: 'ops:p@ss' });
  t.after(() => socks.close());
  const viaSocks = { HTTPS_PROXY: socks.url.replace('//', `//ops:${encodeURIComponent('p@ss')}@`), SSL_CERT_FILE: s.caFile };
  const checked = await s.home.cli(['check-plan', '--info', s.info()], viaSocks);
  assert.equal(checked.exitCode, 0, checked.stderr);
  assert.deepEqual(socks.logins, ['ops:p@ss']);
  assert.doesNotMatch(checked.stdout + checked.stderr, /p@ss|p%40ss|ExperimentalWarning|SOCKS5 proxy support is experimental/);

  const withoutLogin = await s.home.cli(['check-plan', '--info', s.info()], { HTTPS_PROXY: socks.url, SSL_CERT_FILE: s.caFile });
  assert.equal(withoutLogin.exitCode, 79, withoutLogin.stderr);
  assert.match(withoutLogin.stdout + withoutLogin.stderr, /the proxy socks5:\/\/127\.0\.0\.1:\d+ \(HTTPS_PROXY\) refused to go on without a login/);
  assert.match(withoutLogin.stdout + withoutLogin.stderr, /code: CHAINVISOR_PROXY_AUTH_REQUIRED/);
  const wrongLogin = await s.home.cli(['check-plan', '--info', s.info()], { ...viaSocks, HTTPS_PROXY: socks.url.replace('//', '//ops:wrongpass42@') });
  assert.equal(wrongLogin.exitCode, 79, wrongLogin.stderr);
  assert.match(wrongLogin.stdout + wrongLogin.stderr, /refused the SOCKS5 login .*: it refused the credentials given/);
  assert.doesNotMatch(wrongLogin.stdout + wrongLogin.stderr, /wrongpass42/);
  const unreachable = binariesInfo({ [hostPlatform()]: withChecksum('https://nowhere.example.test/simd.tar.gz', tarGz) });
  const noHost = await s.home.cli(['check-plan', '--info', unreachable], viaSocks);
  assert.equal(noHost.exitCode, 79, noHost.stderr);
  assert.match(noHost.stdout + noHost.stderr, /failed after 2 attempts: the SOCKS5 proxy could not connect: the host is unreachable from the proxy/);
  const httpProxy = await proxy(t);
  const notSocks = await s.home.cli(['check-plan', '--info', s.info()], { ...viaSocks, HTTPS_PROXY: httpProxy.url.replace('http:', 'socks5:') });
  assert.equal(notSocks.exitCode, 79, notSocks.stderr);
  assert.match(notSocks.stdout + notSocks.stderr, /does not answer as a SOCKS5 proxy .*hint: fix HTTPS_PROXY/s);
  for (const r of [withoutLogin, wrongLogin, noHost, notSocks]) assertNoBug(r.stderr);

  const v2 = fakeNodeScript({ label: 'v2', journal: s.home.journal, runMs: 50, exitCode: 0 });
  const archive = gzip(tar([{ name: 'bin/simd', body: v2, mode: 0o755 }]));
  s.release.route('/v2.tar.gz', { body: archive });
  const info = binariesInfo({ [hostPlatform()]: withChecksum(s.release.url('/v2.tar.gz'), archive) });
  await s.home.cliOk(['init', await s.home.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10, info), style: 'exit' } })]);
  const run = await s.home.cli(['run', 'start'], { ...viaSocks, DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true' });
  assert.equal(run.exitCode, 0, run.stderr);
  assert.equal(await s.home.current(), 'upgrades/v2');
  assert.doesNotMatch(run.stderr, /p@ss|p%40ss|ExperimentalWarning/);
});

test('an https proxy given by its address: its own certificate, untrusted, is named with a hint about it; trusted, it works', async (t) => {
  const s = await setup(t);
  const secureProxy = await proxy(t, { tls: true });
  const r = await s.home.cli(['check-plan', '--info', s.info()], { HTTPS_PROXY: secureProxy.url });
  assert.equal(r.exitCode, 79, r.stderr);
  assert.match(r.stdout + r.stderr, /the TLS certificate of the proxy https:\/\/127\.0\.0\.1:\d+ \(HTTPS_PROXY\) does not verify/);
  assert.match(r.stdout + r.stderr, /hint: the proxy's own certificate/);
  assert.doesNotMatch(r.stdout + r.stderr, /certificate of releases\.example\.test/);
  assert.equal(s.release.requests.length, 0);
  // Given by its IP address: Node 26 refuses an address as the TLS server name, Node 22 warned (DEP0123).
  const trusted = await s.home.cli(['check-plan', '--info', s.info()], { HTTPS_PROXY: secureProxy.url, SSL_CERT_FILE: s.caFile });
  assert.equal(trusted.exitCode, 0, trusted.stderr);
  assert.doesNotMatch(r.stderr + trusted.stderr, /DEP0123|ServerName/);
});

test('NO_PROXY=host: (an empty port) goes direct, as Go does', async (t) => {
  const s = await setup(t);
  const p = await proxy(t);
  const env = { HTTPS_PROXY: p.url, SSL_CERT_FILE: s.caFile, CHAINVISOR_DOWNLOAD_RETRIES: '0' };
  const direct = await s.home.cli(['check-plan', '--info', s.info()], { ...env, NO_PROXY: 'releases.example.test:' });
  assert.equal(direct.exitCode, 79, 'direct, the name does not resolve');
  assert.deepEqual(p.requests, [], 'the proxy was not asked');
  assertNoBug(direct.stderr);
  const proxied = await s.home.cli(['check-plan', '--info', s.info()], { ...env, NO_PROXY: 'releases.example.test:8443' });
  assert.equal(proxied.exitCode, 0, proxied.stderr);
  assert.equal(p.requests.length, 1);
});

test('a redirect to a URL with credentials, a body that stops mid-way, an answer that trickles past the deadline', async (t) => {
  const s = await setup(t, { tls: false });
  const local = (url: string) => url.replace('releases.example.test', '127.0.0.1');
  const withCredentials = local(s.release.url('/b.tar.gz')).replace('http://', 'http://redirops:redirsecret42@');
  s.release.route('/a.tar.gz', { always: { kind: 'redirect', to: withCredentials } });
  s.release.route('/b.tar.gz', { always: { kind: 'redirect', to: '/a.tar.gz' } });
  const redirected = await s.home.cli(['check-plan', '--info', binariesInfo({ [hostPlatform()]: withChecksum(local(s.release.url('/a.tar.gz')), tarGz) })]);
  assert.equal(redirected.exitCode, 79, redirected.stderr);
  assert.match(
    redirected.stdout + redirected.stderr,
    /redirect loop \(http:\/\/127\.0\.0\.1:\d+\/a\.tar\.gz -> http:\/\/\*\*\*@127\.0\.0\.1:\d+\/b\.tar\.gz -> /,
  );
  assert.doesNotMatch(redirected.stdout + redirected.stderr, /redirsecret42|redirops/);
  assert.equal(s.release.requestsTo('/b.tar.gz')[0]?.authorization, undefined, "a redirect's credentials are not sent");

  s.release.route('/cut.tar.gz', { body: tarGz, faults: [{ kind: 'drop', afterBytes: 100 }] });
  const cut = await s.home.cli(['check-plan', '--info', binariesInfo({ [hostPlatform()]: withChecksum(local(s.release.url('/cut.tar.gz')), tarGz) })]);
  assert.equal(cut.exitCode, 0, cut.stderr);
  assert.match(s.release.requestsTo('/cut.tar.gz')[1]?.range ?? '', /^bytes=100-$/, 'resumed where it stopped');

  s.release.route('/slow.tar.gz', { body: tarGz, always: { kind: 'trickle', bytes: 1, everyMs: 200 } });
  const slow = await s.home.cli(['check-plan', '--info', binariesInfo({ [hostPlatform()]: withChecksum(local(s.release.url('/slow.tar.gz')), tarGz) })], {
    CHAINVISOR_DOWNLOAD_DEADLINE: '2s',
  });
  assert.equal(slow.exitCode, 79, slow.stderr);
  assert.match(slow.stdout + slow.stderr, /code: CHAINVISOR_DOWNLOAD_DEADLINE/);
});
