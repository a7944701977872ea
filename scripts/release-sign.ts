/**
 * A release's signature: `ssh-keygen -Y sign -n file` over SHA256SUMS, written to SHA256SUMS.sig,
 * because OpenSSH is on every validator host to verify it, against the project's public key in
 * keys/allowed_signers (README, "Install on a validator"). The key is a private key file, or its `.pub`
 * with the private part in ssh-agent; a passphrase is asked for on the terminal by ssh-keygen.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The environment variable naming the signing key; unset or empty: the release is unsigned. */
export const signingKeyVariable = 'CHAINVISOR_RELEASE_SIGNING_KEY';
/** The name the project's key has in keys/allowed_signers (`-I` of `ssh-keygen -Y verify`). */
const releasePrincipal = 'release@chainvisor';

type Fail = (message: string, hint: string) => never;

/**
 * The key named by CHAINVISOR_RELEASE_SIGNING_KEY (relative to where npm was run), checked before
 * anything is built, with ssh-keygen; undefined when unset.
 */
export function signingKey(env: NodeJS.ProcessEnv, fail: Fail): string | undefined {
  const value = env[signingKeyVariable];
  if (value === undefined || value === '') return undefined;
  const key = path.resolve(env.INIT_CWD ?? process.cwd(), value);
  try {
    if (!fs.statSync(key).isFile())
      fail(`${signingKeyVariable}=${value} is not a file`, 'set it to an OpenSSH private key file (or its .pub, with the key in ssh-agent)');
    fs.accessSync(key, fs.constants.R_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'EACCES') throw error;
    fail(
      `${signingKeyVariable}=${value}: ${code === 'ENOENT' ? 'no such file' : 'not readable'} (${key})`,
      'set it to an OpenSSH private key file you can read (or its .pub, with the key in ssh-agent), or unset it to build an unsigned release',
    );
  }
  const missing: NodeJS.ErrnoException | undefined = spawnSync('ssh-keygen', ['-?'], { stdio: 'ignore' }).error;
  if (missing?.code === 'ENOENT')
    fail(
      `${signingKeyVariable} is set but ssh-keygen is not installed`,
      'install OpenSSH (the openssh-client package), or unset it to build an unsigned release',
    );
  return key;
}

/**
 * Signs `<dir>/SHA256SUMS` with `key` into `<dir>/SHA256SUMS.sig` (a signature already there is removed
 * first: a failed signing leaves none), then says whether keys/allowed_signers verifies it.
 */
export function signSums(options: { dir: string; key: string; allowedSigners: string; fail: Fail }): void {
  const { dir, key, allowedSigners, fail } = options;
  const sums = path.join(dir, 'SHA256SUMS');
  if (!fs.existsSync(sums)) fail(`no SHA256SUMS in ${dir}`, 'give the folder npm run release wrote (release/)');
  fs.rmSync(`${sums}.sig`, { force: true });
  const signed = spawnSync('ssh-keygen', ['-Y', 'sign', '-f', key, '-n', 'file', 'SHA256SUMS'], { cwd: dir, stdio: 'inherit' });
  if (signed.status !== 0 || !fs.existsSync(`${sums}.sig`)) {
    fail(
      `ssh-keygen -Y sign -f ${key} -n file SHA256SUMS failed (${signed.error?.message ?? `exit ${signed.status ?? signed.signal}`}; its message is above)`,
      `${signingKeyVariable} must name an OpenSSH private key (ssh-keygen -t ed25519), or its .pub with the key in ssh-agent; SHA256SUMS is left unsigned`,
    );
  }
  const verified = spawnSync('ssh-keygen', ['-Y', 'verify', '-f', allowedSigners, '-I', releasePrincipal, '-n', 'file', '-s', `${sums}.sig`], {
    input: fs.readFileSync(sums),
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  const shown = path.join(path.basename(dir), 'SHA256SUMS.sig');
  if (verified.status === 0) process.stdout.write(`${shown}  signed with the project's key (keys/allowed_signers, ${releasePrincipal})\n`);
  else
    process.stderr.write(
      `release: warning: ${shown} is signed with a key that keys/allowed_signers does not hold: it verifies only ` +
        `against an allowed_signers file holding that key's public part (README, "Build a release yourself")\n`,
    );
}
