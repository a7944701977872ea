/**
 * The validator's network as cosmovisor sees it, through the `chainvisor` command (and, in CI, the
 * release executable): a release host reachable only through the company's proxy
 * (`releases.example.test` resolves at the proxy alone) with a certificate from a private CA.
 * `check-plan` downloads through the proxy and trusts the CA named by SSL_CERT_FILE, SSL_CERT_DIR or
 * NODE_EXTRA_CA_CERTS; refuses with a hint naming SSL_CERT_FILE without it; a 407 has its own code;
 * `config` shows the proxy in effect without its credentials.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { goodArchives } from '../../scripts/make-hostile-archives.js';
import { hostPlatform } from '../../src/download/index.js';
import { binariesInfo, withChecksum } from '../support/download-kit.js';
import { type FaultServer, startFaultServer } from '../support/fault-server.js';
import { makeHome, type TestHome } from '../support/home.js';
import { type ProxyServer, startProxyServer } from '../support/proxy-server.js';
import { testCa } from '../support/tls.js';

const tarGz = goodArchives('simd').tarGz?.data as Buffer;

interface Network {
  home: TestHome;
  release: FaultServer;
  proxy: ProxyServer;
  info: string;
  caFile: string;
}

async function network(t: TestContext, proxyCredentials?: string): Promise<Network> {
  const home = await makeHome({ CHAINVISOR_DOWNLOAD_RETRIES: '0' });
  t.after(() => home.cleanup());
  const release = await startFaultServer({ tls: true, name: 'releases.example.test' });
  t.after(() => release.close());
  release.route('/simd.tar.gz', { body: tarGz });
  const proxy = await startProxyServer({ hosts: { 'releases.example.test': '127.0.0.1' }, ...(proxyCredentials ? { credentials: proxyCredentials } : {}) });
  t.after(() => proxy.close());
  const caFile = path.join(home.root, 'corporate-ca.pem');
  await fs.writeFile(caFile, testCa);
  const info = binariesInfo({ [hostPlatform()]: withChecksum(release.url('/simd.tar.gz'), tarGz) });
  return { home, release, proxy, info, caFile };
}

test('check-plan through HTTPS_PROXY (written without a scheme), trusting the CA in SSL_CERT_FILE', async (t) => {
  const n = await network(t);
  const r = await n.home.cli(['check-plan', '--info', n.info], { HTTPS_PROXY: n.proxy.hostPort, SSL_CERT_FILE: n.caFile });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.match(r.stdout, /bin\/simd \(tar\.gz\)\s+ok: v2\.0\.0/);
  assert.equal(n.proxy.requests[0]?.method, 'CONNECT');
  assert.equal(n.proxy.requests[0]?.target, new URL(n.release.origin).host);
});

test('the same without the CA: refused, naming the host, the problem and SSL_CERT_FILE, with no advice about Node flags', async (t) => {
  const n = await network(t);
  const r = await n.home.cli(['check-plan', '--info', n.info], { https_proxy: n.proxy.url });
  assert.equal(r.exitCode, 79, r.stderr);
  assert.match(
    r.stderr,
    /the TLS certificate of releases\.example\.test:\d+ does not verify: it was issued by a certificate authority this host does not trust/,
  );
  assert.match(r.stderr, /hint: .*SSL_CERT_FILE/);
  assert.doesNotMatch(r.stderr, /use-system-ca|Node\.js/);
  assert.equal(n.release.requests.length, 0);
});

test('SSL_CERT_DIR and NODE_EXTRA_CA_CERTS are trusted too', async (t) => {
  const n = await network(t);
  const dir = path.join(n.home.root, 'certs');
  await fs.mkdir(dir);
  await fs.copyFile(n.caFile, path.join(dir, 'corporate-ca.crt'));
  const viaDir = await n.home.cli(['check-plan', '--info', n.info], { HTTPS_PROXY: n.proxy.url, SSL_CERT_DIR: `/nonexistent:${dir}` });
  assert.equal(viaDir.exitCode, 0, viaDir.stderr);
  const viaNode = await n.home.cli(['check-plan', '--info', n.info], { HTTPS_PROXY: n.proxy.url, NODE_EXTRA_CA_CERTS: n.caFile });
  assert.equal(viaNode.exitCode, 0, viaNode.stderr);
});

test('a proxy that needs credentials: 407 has its own code; the credentials in the URL work and are never printed', async (t) => {
  const n = await network(t, 'ops:pa:ss@word');
  const without = await n.home.cli(['check-plan', '--info', n.info], { HTTPS_PROXY: n.proxy.url, SSL_CERT_FILE: n.caFile });
  assert.equal(without.exitCode, 79);
  assert.match(without.stderr, /code: CHAINVISOR_PROXY_AUTH_REQUIRED/);
  assert.match(without.stderr, /hint: put the proxy's user and password in HTTPS_PROXY/);

  const proxyUrl = n.proxy.url.replace('http://', `http://ops:${encodeURIComponent('pa:ss@word')}@`);
  const withCreds = await n.home.cli(['check-plan', '--info', n.info], { HTTPS_PROXY: proxyUrl, SSL_CERT_FILE: n.caFile });
  assert.equal(withCreds.exitCode, 0, withCreds.stderr);
  assert.doesNotMatch(withCreds.stdout + withCreds.stderr, /pa(%3A|:)ss/);
});

test('config shows the proxy in effect, redacted; a proxy value that is not a URL is refused when downloads are on', async (t) => {
  const home = await makeHome();
  t.after(() => home.cleanup());
  await home.cliOk(['init', await home.fakeNode({ label: 'genesis' })]);
  const shown = await home.cli(['config'], { HTTPS_PROXY: 'http://ops:hunter2@proxy.corp.example:3128', no_proxy: '.corp.example' });
  assert.equal(shown.exitCode, 0, shown.stderr);
  assert.match(shown.stdout, /proxy for https\s+http:\/\/\*\*\*@proxy\.corp\.example:3128 \[env HTTPS_PROXY\]/);
  assert.match(shown.stdout, /no proxy for\s+localhost, loopback addresses, \.corp\.example \[env no_proxy\]/);
  assert.match(shown.stdout, /trusted CAs\s+\d+: Node's bundled roots/);
  assert.doesNotMatch(shown.stdout + shown.stderr, /hunter2/);

  const bad = { HTTPS_PROXY: 'http://ops:hunter2@proxy corp:3128' };
  const refused = await home.cli(['config'], { ...bad, DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true' });
  assert.equal(refused.exitCode, 78, refused.stderr);
  assert.match(refused.stderr, /HTTPS_PROXY=.*not a proxy URL/);
  assert.doesNotMatch(refused.stderr, /hunter2/);
  const unused = await home.cli(['config'], bad);
  assert.equal(unused.exitCode, 0, 'no downloads and no webhooks: the variable is not used, as with cosmovisor');
});
