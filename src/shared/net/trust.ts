/**
 * The certificate authorities an https connection trusts: what Go (cosmovisor) trusts on Linux (the
 * host's bundle file and certificate folders), plus Node's own. Read from the files themselves, not
 * through `--use-system-ca`; one secure context is built per set of variables and kept.
 * Why, and the rest of its rules: docs/design/downloads.md#sharednettrustts.
 */
import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { SecureContext } from 'node:tls';

import { type BoundedRead, readBounded } from '../fsread/index.js';

/**
 * node:tls, loaded on first use: loading it takes 20–70 ms on a busy 2-core host, and every command
 * loads this module (cli/command.ts checks the proxy variables) while few need TLS.
 */
const tls = (): typeof import('node:tls') => process.getBuiltinModule('node:tls');

type Env = Readonly<Record<string, string | undefined>>;

/** Go's `certFiles` for Linux, in its order (crypto/x509/root_linux.go). */
const systemBundleFiles = [
  '/etc/ssl/certs/ca-certificates.crt', // Debian, Ubuntu, Gentoo
  '/etc/pki/tls/certs/ca-bundle.crt', // Fedora, RHEL 6
  '/etc/ssl/ca-bundle.pem', // openSUSE
  '/etc/pki/tls/cacert.pem', // OpenELEC
  '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem', // CentOS, RHEL 7
  '/etc/ssl/cert.pem', // Alpine
];

/** Go's `certDirectories` for Linux. */
const systemCertDirs = ['/etc/ssl/certs', '/etc/pki/tls/certs'];

export interface TrustStore {
  /** PEM certificates, each once. */
  certificates: string[];
  /** Where they came from, for `chainvisor config` and messages: `Node's bundled roots`, files and folders read. */
  sources: string[];
  /** Files and folders named (or found in a folder) that were not read, and why: `SSL_CERT_FILE /tmp/ca: it is a FIFO, not a regular file`. */
  skipped: string[];
}

const pemBlock = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/**
 * The most read from one file: a distribution's whole bundle is under 1 MiB. A link to /dev/zero is
 * refused by its type; this bounds a regular file that is not a bundle at all.
 */
const maxCertFileBytes = 16 * 1024 * 1024;

/** Files of a folder read at once (a distribution's /etc/ssl/certs holds a few hundred). */
const folderReads = 8;

/**
 * Reads the trust store the variables in `env` describe (not cached: `secureContextFor` caches).
 * `system` replaces Go's lists (tests). Every file is read by the one bounded reader (shared/fsread):
 * a FIFO, a device or a socket named by SSL_CERT_FILE or found in a folder is skipped unread and said
 * in `skipped` (Go skips what it cannot read too, but would block on a FIFO and read /dev/zero for ever).
 */
export async function readTrustStore(env: Env = process.env, system: { bundleFiles?: string[]; certDirs?: string[] } = {}): Promise<TrustStore> {
  const seen = new Set<string>();
  const certificates: string[] = [];
  const add = (pem: string): void => {
    const key = pem.replace(/\s+/g, '');
    if (seen.has(key)) return;
    seen.add(key);
    certificates.push(pem);
  };
  const fromText = (text: string): number => {
    const before = certificates.length;
    for (const block of text.match(pemBlock) ?? []) add(block);
    return certificates.length - before;
  };
  const sources: string[] = [];
  const skipped: string[] = [];

  for (const pem of tls().getCACertificates('default')) add(pem);
  sources.push(env.NODE_EXTRA_CA_CERTS ? `Node's bundled roots and NODE_EXTRA_CA_CERTS (${env.NODE_EXTRA_CA_CERTS})` : "Node's bundled roots");

  // The bundle file: SSL_CERT_FILE replaces Go's list; the first that can be read is used.
  const files = env.SSL_CERT_FILE ? [env.SSL_CERT_FILE] : (system.bundleFiles ?? systemBundleFiles);
  const fileLabel = env.SSL_CERT_FILE ? 'SSL_CERT_FILE ' : '';
  for (const file of files) {
    const read = await readBounded(file, maxCertFileBytes);
    if (read.status === 'refused') skipped.push(`${fileLabel}${file}: ${read.reason}`);
    if (read.status !== 'ok') continue;
    const count = fromText(read.text);
    sources.push(`${fileLabel}${file} (${count} new)`);
    break;
  }

  // The folders: SSL_CERT_DIR (colon-separated) replaces Go's list.
  const dirs = env.SSL_CERT_DIR ? env.SSL_CERT_DIR.split(':').filter((dir) => dir !== '') : (system.certDirs ?? systemCertDirs);
  const dirLabel = env.SSL_CERT_DIR ? 'SSL_CERT_DIR ' : '';
  for (const dir of dirs) {
    const names = await readFolder(dir);
    if (typeof names === 'string') {
      skipped.push(`${dirLabel}${dir}/: ${names}`);
      continue;
    }
    if (names === undefined) continue;
    // Read a few at once (each read is a few trips through the thread pool), counted in the folder's
    // order: the first copy of a certificate is the one kept.
    const reads = new Array<BoundedRead | undefined>(names.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < names.length; i = next++) {
        const entry = names[i] as Dirent;
        const file = path.join(dir, entry.name);
        reads[i] = entry.isSymbolicLink() && (await isSameFolderLink(file)) ? undefined : await readBounded(file, maxCertFileBytes);
      }
    };
    await Promise.all(Array.from({ length: folderReads }, worker));
    let count = 0;
    reads.forEach((read, i) => {
      if (read?.status === 'ok') count += fromText(read.text);
      // A sub-folder is skipped quietly, as Go does (`/etc/ssl/certs/java/`).
      else if (read?.status === 'refused' && !read.reason.startsWith('it is a folder'))
        skipped.push(`${path.join(dir, (names[i] as Dirent).name)}: ${read.reason}`);
    });
    sources.push(`${dirLabel}${dir}/ (${count} new)`);
  }
  return { certificates, sources, skipped };
}

const contexts = new Map<string, Promise<SecureContext>>();

/**
 * The secure context every https connection uses: the trust store above, plus `extraCa` (tests pass
 * their private CA here). Built once per combination and kept for the process.
 */
export function secureContextFor(env: Env = process.env, extraCa?: string | Buffer): Promise<SecureContext> {
  const key = JSON.stringify([env.SSL_CERT_FILE ?? '', env.SSL_CERT_DIR ?? '', extraCa?.toString() ?? '']);
  let context = contexts.get(key);
  if (context === undefined) {
    context = readTrustStore(env).then(({ certificates }) =>
      tls().createSecureContext({ ca: extraCa === undefined ? certificates : [...certificates, extraCa.toString()] }),
    );
    // A failure is not kept: the next connection tries again.
    context.catch(() => contexts.delete(key));
    contexts.set(key, context);
  }
  return context;
}

/** A folder's entries in name order; undefined when there is none (Go skips it too); a string saying why it cannot be listed. */
async function readFolder(dir: string): Promise<Dirent[] | string | undefined> {
  try {
    return (await fs.readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | null)?.code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if (typeof code === 'string') return `cannot be listed (${code})`;
    throw error;
  }
}

/** Go's `isSameDirSymlink`: a link whose target has no slash names a file already read from this folder. */
async function isSameFolderLink(file: string): Promise<boolean> {
  try {
    return !(await fs.readlink(file)).includes('/');
  } catch (error) {
    // Not a link (EINVAL), gone, or not readable: the read says what it is.
    if (typeof (error as NodeJS.ErrnoException | null)?.code === 'string') return false;
    throw error;
  }
}
