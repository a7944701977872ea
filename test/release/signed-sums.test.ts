/**
 * Signed releases: `npm run release -- --sign-only <dir>` signs a release's SHA256SUMS with the key
 * CHAINVISOR_RELEASE_SIGNING_KEY names (a throw-away ed25519 key made here), and the README's install
 * commands, taken from its code block as written, install only a release whose signature and checksum
 * hold: a changed SHA256SUMS, another key or a changed executable installs nothing.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(fileURLToPath(import.meta.url), '../../../..');
const releaseScript = path.join(repo, 'dist', 'scripts', 'release.js');
const probe: NodeJS.ErrnoException | undefined = spawnSync('ssh-keygen', ['-?'], { stdio: 'ignore' }).error;
const noSshKeygen = probe?.code === 'ENOENT';
const skip = noSshKeygen && 'ssh-keygen (OpenSSH) is not installed';
if (noSshKeygen) console.log('!!! SKIPPED: the signed-release tests need ssh-keygen (OpenSSH; the openssh-client package)');

/** A folder laid out as a release (two fake executables, SHA256SUMS), a throw-away key and its allowed_signers. */
async function release(t: { after(fn: () => Promise<void>): void }) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cv-signed-'));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  const files = path.join(dir, 'release');
  await fs.mkdir(files);
  const sums: string[] = [];
  for (const arch of ['x64', 'arm64']) {
    const body = `#!/bin/sh\necho "chainvisor version: 9.9.9-${arch}"\n`;
    await fs.writeFile(path.join(files, `chainvisor-linux-${arch}`), body, { mode: 0o755 });
    sums.push(`${createHash('sha256').update(body).digest('hex')}  chainvisor-linux-${arch}`);
  }
  await fs.writeFile(path.join(files, 'SHA256SUMS'), `${sums.join('\n')}\n`);
  const key = await throwAwayKey(dir, 'key');
  return { dir, files, key: key.file, allowedSigners: key.allowedSigners };
}

async function throwAwayKey(dir: string, name: string) {
  const file = path.join(dir, name);
  const made = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'throw-away', '-f', file], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  const allowedSigners = path.join(dir, `${name}.allowed_signers`);
  await fs.writeFile(allowedSigners, `release@chainvisor namespaces="file" ${await fs.readFile(`${file}.pub`, 'utf8')}`);
  return { file, allowedSigners };
}

function signOnly(dir: string, env: NodeJS.ProcessEnv) {
  const { CHAINVISOR_RELEASE_SIGNING_KEY: _, INIT_CWD: __, ...rest } = process.env;
  return spawnSync(process.execPath, [releaseScript, '--sign-only', dir], { env: { ...rest, ...env }, encoding: 'utf8' });
}

/** The README's install commands, with `sudo` dropped and /usr/local/bin/ replaced by `bin`. */
async function installCommands(bin: string): Promise<string> {
  const readme = await fs.readFile(path.join(repo, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Install on a validator'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  assert.match(block, /ssh-keygen -Y verify -f allowed_signers -I release@chainvisor -n file -s SHA256SUMS\.sig < SHA256SUMS &&/);
  assert.match(block, /sudo install -m 0755 chainvisor-linux-\$arch \/usr\/local\/bin\/chainvisor/);
  return block.replaceAll('sudo ', '').replaceAll('/usr/local/bin/', `${bin}/`);
}

/** Runs the README's commands in `folder` (allowed_signers copied in from `allowedSigners`); what was installed. */
async function install(folder: string, allowedSigners: string) {
  await fs.copyFile(allowedSigners, path.join(folder, 'allowed_signers'));
  const bin = path.join(folder, 'bin');
  await fs.rm(bin, { recursive: true, force: true });
  await fs.mkdir(bin);
  const r = spawnSync('sh', ['-c', await installCommands(bin)], { cwd: folder, env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }, encoding: 'utf8' });
  const installed = await fs.readdir(bin);
  return { status: r.status, output: r.stdout + r.stderr, installed };
}

test('--sign-only signs SHA256SUMS with the key given, and the signature verifies against its allowed_signers', { skip }, async (t) => {
  const r = await release(t);
  const signed = signOnly(r.files, { CHAINVISOR_RELEASE_SIGNING_KEY: r.key });
  assert.equal(signed.status, 0, signed.stderr);
  assert.match(await fs.readFile(path.join(r.files, 'SHA256SUMS.sig'), 'utf8'), /^-----BEGIN SSH SIGNATURE-----/);
  // A throw-away key is not the project's: said so, not refused.
  assert.match(signed.stderr, /signed with a key that keys\/allowed_signers does not hold/);
  const verify = (allowedSigners: string) =>
    spawnSync('ssh-keygen', ['-Y', 'verify', '-f', allowedSigners, '-I', 'release@chainvisor', '-n', 'file', '-s', 'SHA256SUMS.sig'], {
      cwd: r.files,
      input: readFileSync(path.join(r.files, 'SHA256SUMS')),
      encoding: 'utf8',
    });
  assert.equal(verify(r.allowedSigners).status, 0);
  assert.notEqual(verify(path.join(repo, 'keys', 'allowed_signers')).status, 0, "the project's key does not verify a throw-away key's signature");
});

test("the README's install commands install a signed release, and nothing when SHA256SUMS changed, the key is another or the file changed", { skip }, async (t) => {
  const r = await release(t);
  assert.equal(signOnly(r.files, { CHAINVISOR_RELEASE_SIGNING_KEY: r.key }).status, 0);
  const good = await install(r.files, r.allowedSigners);
  assert.equal(good.status, 0, good.output);
  assert.match(good.output, /Good "file" signature for release@chainvisor/);
  assert.match(good.output, /chainvisor-linux-(x64|arm64): OK/);
  assert.match(good.output, /chainvisor version: 9\.9\.9-/);
  assert.deepEqual(good.installed, ['chainvisor']);

  const other = await throwAwayKey(r.dir, 'other');
  const wrongKey = await install(r.files, other.allowedSigners);
  assert.notEqual(wrongKey.status, 0);
  assert.match(wrongKey.output, /Could not verify signature/);
  assert.deepEqual(wrongKey.installed, [], 'installed with a signature from another key');

  const sums = path.join(r.files, 'SHA256SUMS');
  const original = await fs.readFile(sums, 'utf8');
  await fs.writeFile(sums, original.replace(/^[0-9a-f]{64}/, '0'.repeat(64)));
  const changed = await install(r.files, r.allowedSigners);
  assert.notEqual(changed.status, 0);
  assert.match(changed.output, /Could not verify signature/);
  assert.deepEqual(changed.installed, [], 'installed with a changed SHA256SUMS');

  await fs.writeFile(sums, original);
  for (const arch of ['x64', 'arm64']) await fs.appendFile(path.join(r.files, `chainvisor-linux-${arch}`), '# changed\n');
  const tampered = await install(r.files, r.allowedSigners);
  assert.notEqual(tampered.status, 0);
  assert.match(tampered.output, /Good "file" signature/);
  assert.match(tampered.output, /FAILED/);
  assert.deepEqual(tampered.installed, [], 'installed an executable SHA256SUMS does not list');
});

test('a key that cannot sign fails with the reason and leaves no signature, not an old one', { skip }, async (t) => {
  const r = await release(t);
  await fs.writeFile(path.join(r.files, 'SHA256SUMS.sig'), 'an old signature\n');
  const notAKey = path.join(r.dir, 'not-a-key');
  await fs.writeFile(notAKey, 'hello\n');
  const bad = signOnly(r.files, { CHAINVISOR_RELEASE_SIGNING_KEY: notAKey });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /release: error: ssh-keygen -Y sign .* failed/);
  assert.match(bad.stderr, /release: hint: CHAINVISOR_RELEASE_SIGNING_KEY must name an OpenSSH private key/);
  await assert.rejects(fs.access(path.join(r.files, 'SHA256SUMS.sig')), { code: 'ENOENT' });

  const missing = signOnly(r.files, { CHAINVISOR_RELEASE_SIGNING_KEY: path.join(r.dir, 'nowhere') });
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /CHAINVISOR_RELEASE_SIGNING_KEY=.*nowhere: no such file/);

  const none = signOnly(r.files, {});
  assert.equal(none.status, 1);
  assert.match(none.stderr, /--sign-only needs a key: CHAINVISOR_RELEASE_SIGNING_KEY is not set/);

  const typo = spawnSync(process.execPath, [releaseScript, '--sing-only', r.files], { encoding: 'utf8' });
  assert.equal(typo.status, 1);
  assert.match(typo.stderr, /Unknown option '--sing-only'[\s\S]*usage: npm run release/);
});

test("keys/allowed_signers holds the project's ed25519 key for release@chainvisor, files only, with the README's fingerprint", { skip }, async (t) => {
  const lines = (await fs.readFile(path.join(repo, 'keys', 'allowed_signers'), 'utf8')).split('\n').filter((line) => line !== '' && !line.startsWith('#'));
  assert.equal(lines.length, 1, lines.join('\n'));
  const match = /^release@chainvisor namespaces="file" (ssh-ed25519 \S+)/.exec(lines[0] as string);
  assert.ok(match, lines[0]);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cv-project-key-'));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  await fs.writeFile(path.join(dir, 'key.pub'), `${match[1]}\n`);
  const fingerprint = /SHA256:\S+/.exec(spawnSync('ssh-keygen', ['-lf', path.join(dir, 'key.pub')], { encoding: 'utf8' }).stdout)?.[0];
  assert.ok(fingerprint);
  assert.ok((await fs.readFile(path.join(repo, 'README.md'), 'utf8')).includes(`\`${fingerprint}\``), `the README gives the key's fingerprint ${fingerprint}`);
});
