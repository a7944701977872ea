/**
 * Trusting what the host trusts, as Go does: a private CA in SSL_CERT_FILE or in a folder of
 * SSL_CERT_DIR makes its server's certificate verify; without it, the download refuses and says how
 * to fix it. The host's bundle is the first of Go's files that exists; a folder's `<hash>.0` links
 * are not read twice.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { createFetcher, parseSource } from '../../../src/download/index.js';
import { readTrustStore } from '../../../src/shared/net/index.js';
import { fastBackoff, memoryLogger, sha256, tempDir } from '../../support/download-kit.js';
import { startFaultServer } from '../../support/fault-server.js';
import { makeNotFile } from '../../support/not-files.js';
import { testCa } from '../../support/tls.js';

const body = randomBytes(64 * 1024);

async function fetchWith(t: TestContext, env: Record<string, string>) {
  const s = await startFaultServer({ tls: true });
  t.after(() => s.close());
  s.route('/simd', { body });
  const dir = await tempDir(t);
  // No CA given to the fetcher: only what the environment names is trusted besides Node's roots.
  const fetcher = createFetcher({
    timeoutMs: 2000,
    retries: 2,
    maxBytes: 1 << 20,
    policy: { allowInsecureHttp: false, allowFileUrls: false },
    logger: memoryLogger().logger,
    env,
    ...fastBackoff,
  });
  t.after(() => fetcher.close());
  return fetcher.fetchToFile({
    source: parseSource(s.url('/simd'), { mustHaveChecksum: false, what: 'binary' }),
    file: path.join(dir, 'simd'),
    what: 'linux/amd64 binary',
  });
}

test('a private CA is not trusted by default: refused at once, with SSL_CERT_FILE in the hint', async (t) => {
  await assert.rejects(fetchWith(t, {}), (error: Error & { code?: string; hint?: string; attempts?: number }) => {
    assert.equal(error.code, 'CHAINVISOR_DOWNLOAD_FAILED');
    assert.equal(error.attempts, 1);
    assert.match(error.message, /the TLS certificate of 127\.0\.0\.1:\d+ does not verify: it was issued by a certificate authority this host does not trust/);
    assert.match(error.hint ?? '', /SSL_CERT_FILE/);
    return true;
  });
});

test('SSL_CERT_FILE names a PEM bundle holding the CA: trusted', async (t) => {
  const dir = await tempDir(t);
  const bundle = path.join(dir, 'corporate.pem');
  await fs.writeFile(bundle, `# the company's CA\n${testCa}`);
  assert.equal((await fetchWith(t, { SSL_CERT_FILE: bundle })).checksum.hex, sha256(body));
});

test('SSL_CERT_DIR: colon-separated folders of PEM files, the CA in the second one', async (t) => {
  const dir = await tempDir(t);
  const [first, second] = [path.join(dir, 'empty'), path.join(dir, 'certs')];
  await fs.mkdir(first);
  await fs.mkdir(second);
  await fs.writeFile(path.join(second, 'corporate-ca.crt'), testCa);
  assert.equal((await fetchWith(t, { SSL_CERT_DIR: `${first}:${path.join(dir, 'missing')}:${second}` })).checksum.hex, sha256(body));
});

test("the host's bundle: the first of Go's files that exists; SSL_CERT_FILE replaces the list", async (t) => {
  const dir = await tempDir(t);
  const [missing, first, second] = ['missing.crt', 'first.crt', 'second.crt'].map((name) => path.join(dir, name)) as [string, string, string];
  await fs.writeFile(first, testCa);
  await fs.writeFile(second, 'not read');
  const store = await readTrustStore({}, { bundleFiles: [missing, first, second], certDirs: [] });
  assert.ok(store.certificates.some((pem) => pem.replace(/\s/g, '') === testCa.trim().replace(/\s/g, '')));
  assert.ok(store.sources.includes(`${first} (1 new)`), store.sources.join('; '));
  assert.ok(!store.sources.some((s) => s.includes(second)));

  const replaced = await readTrustStore({ SSL_CERT_FILE: missing }, { bundleFiles: [first], certDirs: [] });
  assert.ok(!replaced.sources.some((s) => s.includes(first)), 'SSL_CERT_FILE replaces the list, as in Go');
});

test("a folder's <hash>.0 links to a file of the same folder are not read twice; a link elsewhere is", async (t) => {
  const dir = await tempDir(t);
  const certs = path.join(dir, 'certs');
  const shared = path.join(dir, 'share');
  await fs.mkdir(certs);
  await fs.mkdir(shared);
  await fs.writeFile(path.join(shared, 'Corporate_CA.crt'), testCa);
  await fs.symlink(path.join(shared, 'Corporate_CA.crt'), path.join(certs, 'Corporate_CA.pem'));
  await fs.symlink('Corporate_CA.pem', path.join(certs, 'a1b2c3d4.0'));
  await fs.writeFile(path.join(certs, 'README'), 'no certificate here');
  const store = await readTrustStore({ SSL_CERT_DIR: certs }, { bundleFiles: [] });
  assert.ok(store.sources.includes(`SSL_CERT_DIR ${certs}/ (1 new)`), store.sources.join('; '));
});

test("files that are not files are never read, and named: a FIFO bundle gives way to the next of Go's files; a folder keeps its readable files", async (t) => {
  const dir = await tempDir(t);
  const [fifo, second] = [path.join(dir, 'fifo.crt'), path.join(dir, 'second.crt')];
  const closers = [await makeNotFile(fifo, 'fifo')];
  await fs.writeFile(second, testCa);
  const certs = path.join(dir, 'certs');
  await fs.mkdir(certs);
  await fs.writeFile(path.join(certs, 'corporate.pem'), testCa);
  for (const kind of ['zero', 'fifo', 'socket'] as const) closers.push(await makeNotFile(path.join(certs, `${kind}.pem`), kind));
  try {
    const store = await readTrustStore({ SSL_CERT_DIR: certs }, { bundleFiles: [fifo, second] });
    assert.ok(store.sources.includes(`${second} (1 new)`), store.sources.join('; '));
    assert.ok(store.sources.includes(`SSL_CERT_DIR ${certs}/ (0 new)`), 'the CA was met first in the bundle');
    assert.deepEqual(store.skipped, [
      `${fifo}: it is a FIFO, not a regular file`,
      `${path.join(certs, 'fifo.pem')}: it is a FIFO, not a regular file`,
      `${path.join(certs, 'socket.pem')}: it is a socket, not a regular file`,
      `${path.join(certs, 'zero.pem')}: it is a character device, not a regular file`,
    ]);
  } finally {
    for (const close of closers) await close();
  }
});
