/**
 * Builds the node's versions into a folder:
 *   <out>/<version>/bin/<name>     executable launcher
 *   <out>/<version>.tar.gz         bin/<name>, mode kept
 *   <out>/<version>.zip            bin/<name>, mode kept
 *   <out>/<version>.info.json      Info for a plan: host platform → tar.gz, any → zip, with sha256 checksums
 * URLs in the Info files start with `baseUrl` (default: the folder as a file:// URL); a test serving the
 * folder over HTTP calls `upgradeInfoFor` with its own server's URL instead of rebuilding.
 */
import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { create as createTar } from 'tar';

import { SimError } from '../util/errors.js';
import { simVersionNames, type VersionOptions, versionOptionsProblem } from '../versions.js';
import { hostPlatform, infoJson } from './info.js';
import { launcherScript } from './launcher.js';
import { createZip } from './zip.js';

export interface BuildVersionsOptions {
  /** Output folder (created if missing). */
  out: string;
  /** Binary name; default `simd`. */
  name?: string;
  /** Prefix of the URLs in the Info files; default the output folder as a file:// URL. */
  baseUrl?: string;
  /** Which versions; default all of them (genesis, v2, v3, v2-broken). */
  versions?: readonly string[];
  /**
   * Variants built as well, by name: a version (`from`) with VersionOptions, e.g.
   * `{ 'genesis-old': { from: 'genesis', inPlaceTestnet: false }, 'v2-slow': { from: 'v2', handlerDelay: '5s' } }`.
   */
  variants?: Readonly<Record<string, VersionVariant>>;
}

export interface VersionVariant extends VersionOptions {
  /** The version it is built from (a key of simVersions). */
  from: string;
}

export interface BuiltVersion {
  version: string;
  /** `<out>/<version>`: the folder holding `bin/<name>`. */
  dir: string;
  /** `<out>/<version>/bin/<name>`. */
  bin: string;
  tarGz: string;
  zip: string;
  infoFile: string;
  /** The Info JSON text (as in infoFile). */
  info: string;
  sha256: { bin: string; tarGz: string; zip: string };
}

export interface BuiltVersions {
  out: string;
  name: string;
  /** The host's platform key, e.g. `linux/amd64`. */
  platform: string;
  versions: Record<string, BuiltVersion>;
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const fixedTime = new Date('2024-01-01T00:00:00Z');
/**
 * The code the launchers load: this build's main.js, or SIMD_MAIN, a file holding the same code (the
 * test run's bundle of it, which starts in a third of the CPU; see scripts/test-bundles.mjs).
 */
const mainUrl = process.env.SIMD_MAIN ? pathToFileURL(path.resolve(process.env.SIMD_MAIN)).href : new URL('../main.js', import.meta.url).href;

function slashed(base: string): string {
  return base.endsWith('/') ? base : `${base}/`;
}

/** Info JSON for a built version at another base URL (e.g. a test's HTTP server). */
export function upgradeInfoFor(built: BuiltVersion, baseUrl: string, options: { host?: 'tar.gz' | 'zip' | 'bin'; platform?: string } = {}): string {
  const base = slashed(baseUrl);
  const targets = {
    'tar.gz': { url: new URL(path.basename(built.tarGz), base).href, sha256: built.sha256.tarGz },
    zip: { url: new URL(path.basename(built.zip), base).href, sha256: built.sha256.zip },
    bin: { url: new URL(`${built.version}/bin/${path.basename(built.bin)}`, base).href, sha256: built.sha256.bin },
  };
  return infoJson(targets[options.host ?? 'tar.gz'], targets.zip, options.platform ?? hostPlatform());
}

export async function buildVersions(options: BuildVersionsOptions): Promise<BuiltVersions> {
  const name = options.name ?? 'simd';
  if (!/^[\w.-]+$/.test(name)) throw new SimError('SIM_BAD_NAME', `invalid binary name ${JSON.stringify(name)}: use letters, digits, ".", "_" or "-"`);
  const out = path.resolve(options.out);
  const versions = options.versions ?? simVersionNames;
  const unknown = versions.filter((v) => !simVersionNames.includes(v));
  if (unknown.length > 0) throw new SimError('SIM_UNKNOWN_VERSION', `unknown versions ${unknown.join(', ')}; known: ${simVersionNames.join(', ')}`);
  const variants = Object.entries(options.variants ?? {});
  for (const [variant, { from, ...variantOptions }] of variants) {
    const problem = !/^[\w.-]+$/.test(variant)
      ? 'use letters, digits, ".", "_" or "-"'
      : simVersionNames.includes(variant)
        ? 'it is the name of a version'
        : !simVersionNames.includes(from)
          ? `unknown version ${JSON.stringify(from)} in "from"; known: ${simVersionNames.join(', ')}`
          : versionOptionsProblem(variantOptions);
    if (problem !== undefined) throw new SimError('SIM_BAD_VARIANT', `invalid variant ${JSON.stringify(variant)}: ${problem}`);
  }
  const baseUrl = slashed(options.baseUrl ?? pathToFileURL(out).href);
  await mkdir(out, { recursive: true });

  const targets = [
    ...versions.map((version) => ({ label: version, version, variant: undefined })),
    ...variants.map(([variant, { from, ...variantOptions }]) => ({ label: variant, version: from, variant: { name: variant, options: variantOptions } })),
  ];
  const built: Record<string, BuiltVersion> = {};
  for (const { label: version, version: from, variant } of targets) {
    const dir = path.join(out, version);
    const bin = path.join(dir, 'bin', name);
    await mkdir(path.dirname(bin), { recursive: true });
    const script = Buffer.from(launcherScript({ mainUrl, version: from, name, variant }));
    await writeFile(bin, script, { mode: 0o755 });
    await chmod(bin, 0o755);

    const tarGz = path.join(out, `${version}.tar.gz`);
    await createTar({ gzip: true, file: tarGz, cwd: dir, portable: true, mtime: fixedTime }, ['bin']);
    const zip = path.join(out, `${version}.zip`);
    await writeFile(
      zip,
      createZip([
        { name: 'bin/', mode: 0o755 },
        { name: `bin/${name}`, data: script, mode: 0o755 },
      ]),
    );

    const entry: BuiltVersion = {
      version,
      dir,
      bin,
      tarGz,
      zip,
      infoFile: path.join(out, `${version}.info.json`),
      info: '',
      sha256: { bin: sha256(script), tarGz: sha256(await readFile(tarGz)), zip: sha256(await readFile(zip)) },
    };
    entry.info = upgradeInfoFor(entry, baseUrl);
    await writeFile(entry.infoFile, `${entry.info}\n`);
    built[version] = entry;
  }
  return { out, name, platform: hostPlatform(), versions: built };
}
