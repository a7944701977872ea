/**
 * The certificate authorities an https connection trusts: what Go (cosmovisor) trusts on Linux, plus
 * Node's own. Node alone trusts only its bundled Mozilla roots (and NODE_EXTRA_CA_CERTS), so a
 * private or corporate CA installed in the host's store — a TLS-inspecting proxy's, a company
 * mirror's — was "certificate does not verify" for chainvisor and fine for cosmovisor. Trusted here:
 * - Node's default roots (the bundled ones and NODE_EXTRA_CA_CERTS);
 * - the host's bundle file, as Go's crypto/x509 finds it: `SSL_CERT_FILE` when set, else the first of
 *   Go's Linux bundle files that exists (`systemBundleFiles`);
 * - the host's certificate folders: `SSL_CERT_DIR` (colon-separated) when set, else `/etc/ssl/certs`
 *   and `/etc/pki/tls/certs`; every file in them is read as PEM, and a link to a file of the same
 *   folder (the `<hash>.0` names) is skipped, as Go does.
 * Read from the files themselves, not through Node's `--use-system-ca`: the same for `bin/chainvisor.js`,
 * the release executable (whose Node ignores command-line flags) and the image. One secure context is
 * built per set of variables and kept: building it parses a few hundred certificates (about 20 ms).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SecureContext } from 'node:tls';

/**
 * node:tls, loaded on first use: loading it takes 20–70 ms on a busy 2-core host, and every command
 * loads this module (cli/command.ts checks the proxy variables) while few need TLS.
 */
const tls = (): typeof import('node:tls') => process.getBuiltinModule('node:tls');

type Env = Readonly<Record<string, string | undefined>>;

/** Go's `certFiles` for Linux, in its order (crypto/x509/root_linux.go). */
export const systemBundleFiles = [
  '/etc/ssl/certs/ca-certificates.crt', // Debian, Ubuntu, Gentoo
  '/etc/pki/tls/certs/ca-bundle.crt', // Fedora, RHEL 6
  '/etc/ssl/ca-bundle.pem', // openSUSE
  '/etc/pki/tls/cacert.pem', // OpenELEC
  '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem', // CentOS, RHEL 7
  '/etc/ssl/cert.pem', // Alpine
];

/** Go's `certDirectories` for Linux. */
export const systemCertDirs = ['/etc/ssl/certs', '/etc/pki/tls/certs'];

export interface TrustStore {
  /** PEM certificates, each once. */
  certificates: string[];
  /** Where they came from, for `chainvisor config` and messages: `Node's bundled roots`, files and folders read. */
  sources: string[];
}

const pemBlock = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/**
 * Reads the trust store the variables in `env` describe (not cached: `secureContextFor` caches).
 * `system` replaces Go's lists (tests).
 */
export function readTrustStore(env: Env = process.env, system: { bundleFiles?: string[]; certDirs?: string[] } = {}): TrustStore {
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

  for (const pem of tls().getCACertificates('default')) add(pem);
  sources.push(env.NODE_EXTRA_CA_CERTS ? `Node's bundled roots and NODE_EXTRA_CA_CERTS (${env.NODE_EXTRA_CA_CERTS})` : "Node's bundled roots");

  // The bundle file: SSL_CERT_FILE replaces Go's list; the first that can be read is used.
  const files = env.SSL_CERT_FILE ? [env.SSL_CERT_FILE] : (system.bundleFiles ?? systemBundleFiles);
  for (const file of files) {
    const text = readText(file);
    if (text === undefined) continue;
    const count = fromText(text);
    sources.push(`${env.SSL_CERT_FILE ? 'SSL_CERT_FILE ' : ''}${file} (${count} new)`);
    break;
  }

  // The folders: SSL_CERT_DIR (colon-separated) replaces Go's list.
  const dirs = env.SSL_CERT_DIR ? env.SSL_CERT_DIR.split(':').filter((dir) => dir !== '') : (system.certDirs ?? systemCertDirs);
  for (const dir of dirs) {
    const names = readFolder(dir);
    if (names === undefined) continue;
    let count = 0;
    for (const name of names) {
      const file = path.join(dir, name);
      if (isSameFolderLink(file)) continue;
      const text = readText(file);
      if (text !== undefined) count += fromText(text);
    }
    sources.push(`${env.SSL_CERT_DIR ? 'SSL_CERT_DIR ' : ''}${dir}/ (${count} new)`);
  }
  return { certificates, sources };
}

const contexts = new Map<string, SecureContext>();

/**
 * The secure context every https connection uses: the trust store above, plus `extraCa` (tests pass
 * their private CA here). Built once per combination and kept for the process.
 */
export function secureContextFor(env: Env = process.env, extraCa?: string | Buffer): SecureContext {
  const key = JSON.stringify([env.SSL_CERT_FILE ?? '', env.SSL_CERT_DIR ?? '', extraCa?.toString() ?? '']);
  let context = contexts.get(key);
  if (context === undefined) {
    const { certificates } = readTrustStore(env);
    context = tls().createSecureContext({ ca: extraCa === undefined ? certificates : [...certificates, extraCa.toString()] });
    contexts.set(key, context);
  }
  return context;
}

/** A file's text, or undefined when it cannot be read (missing, a folder, no permission): Go skips it too. */
function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'latin1');
  } catch (error) {
    if (isSkippable(error)) return undefined;
    throw error;
  }
}

function readFolder(dir: string): string[] | undefined {
  try {
    return fs.readdirSync(dir).sort();
  } catch (error) {
    if (isSkippable(error)) return undefined;
    throw error;
  }
}

/** Go's `isSameDirSymlink`: a link whose target has no slash names a file already read from this folder. */
function isSameFolderLink(file: string): boolean {
  try {
    return !fs.readlinkSync(file).includes('/');
  } catch (error) {
    // Not a link (EINVAL), or gone (the read then skips it).
    if ((error as NodeJS.ErrnoException | null)?.code === 'EINVAL' || isSkippable(error)) return false;
    throw error;
  }
}

function isSkippable(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && ['ENOENT', 'ENOTDIR', 'EISDIR', 'EACCES', 'EPERM', 'ELOOP', 'ENAMETOOLONG'].includes(code);
}
