/**
 * Where the node binary is in an extracted archive: `bin/$DAEMON_NAME`, else `$DAEMON_NAME` at the
 * root (moved into `bin/`), as cosmovisor accepts; for Windows builds also `<name>.exe` (as cosmovisor
 * now does). Everything else in the archive stays where it is: shared libraries such as
 * `libwasmvm.so` travel with the binary.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import { refuseEmptyBinary } from '../home/layout/index.js';
import { ExitCode, isErrno } from '../shared/errors/index.js';
import { exists } from '../shared/fsread/index.js';
import { ArchiveUnsafeError, BinaryNotFoundError, describe, type Subject } from './errors.js';

export interface FoundBinary {
  /** Absolute path of `<tree>/bin/<name>`. */
  binary: string;
  /** Where it was in the archive: `bin/simd`, `simd`. */
  from: string;
}

export async function findBinary(subject: Subject, tree: string, name: string, platform: string | undefined): Promise<FoundBinary> {
  const names = platform?.startsWith('windows/') ? [name, `${name}.exe`] : [name];
  const candidates = [...names.map((n) => `bin/${n}`), ...names];
  const dest = path.join(tree, 'bin', name);
  for (const candidate of candidates) {
    const file = path.join(tree, ...candidate.split('/'));
    if (!(await isRegularInside(subject, tree, file, candidate))) continue;
    // An empty bin/<name> is a broken build, not a node: refuse it rather than switch to it.
    refuseEmptyBinary(
      `${candidate} in the ${describe(subject)}`,
      await fs.stat(file),
      ExitCode.upgradeFailed,
      'the archive holds an empty file where the node binary should be; publish a fixed archive (and a new checksum)',
    );
    if (file !== dest) await moveInto(subject, tree, file, dest);
    await makeExecutable(dest);
    return { binary: dest, from: candidate };
  }
  throw await notFound(subject, tree, name);
}

/** A regular file, or a symbolic link to one that stays inside the tree. */
async function isRegularInside(subject: Subject, tree: string, file: string, shown: string): Promise<boolean> {
  let stat;
  try {
    stat = await fs.stat(file);
  } catch (error) {
    if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR') || isErrno(error, 'ELOOP')) return false;
    throw error;
  }
  if (!stat.isFile()) return false;
  const real = await fs.realpath(file);
  const root = await fs.realpath(tree);
  if (!real.startsWith(root + path.sep)) {
    throw new ArchiveUnsafeError(subject, shown, 'link-escape', 'resolves outside the archive');
  }
  return true;
}

async function moveInto(subject: Subject, tree: string, file: string, dest: string): Promise<void> {
  const binDir = path.dirname(dest);
  try {
    await fs.mkdir(binDir);
  } catch (error) {
    if (!isErrno(error, 'EEXIST')) throw error;
    if (!(await fs.lstat(binDir)).isDirectory()) {
      throw new ArchiveUnsafeError(subject, 'bin', 'bad-name', 'is not a folder, so the binary cannot be moved into bin/');
    }
  }
  if (await exists(dest)) {
    // bin/<name> exists but is not a regular file (a folder, a dangling link): do not guess.
    throw new ArchiveUnsafeError(subject, path.relative(tree, dest), 'bad-name', 'exists but is not a regular file');
  }
  const link = (await fs.lstat(file)).isSymbolicLink();
  if (link) {
    // A relative link would break once moved: point the new one at the same file from bin/.
    const real = await fs.realpath(file);
    await fs.symlink(path.relative(binDir, real), dest);
    await fs.unlink(file);
  } else {
    await fs.rename(file, dest);
  }
}

/** a+x, as cosmovisor does: archives made on Windows or by careless tools lose the bit. */
async function makeExecutable(file: string): Promise<void> {
  const stat = await fs.stat(file);
  const mode = stat.mode & 0o777;
  if ((mode | 0o111) !== mode) await fs.chmod(file, mode | 0o111);
}

async function notFound(subject: Subject, tree: string, name: string): Promise<BinaryNotFoundError> {
  const top = (await fs.readdir(tree, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  const shown = top.slice(0, 10).map((d) => (d.isDirectory() ? `${d.name}/` : d.name));
  if (top.length > 10) shown.push(`… ${top.length - 10} more`);
  let hint = `the archive must hold bin/${name} or ${name} at its root; check DAEMON_NAME (${name}) and the archive's layout`;
  const only = top.length === 1 ? top[0] : undefined;
  if (only !== undefined && only.isDirectory()) {
    for (const inner of [`bin/${name}`, name]) {
      if (await exists(path.join(tree, only.name, ...inner.split('/')))) {
        hint = `the archive wraps everything in "${only.name}/" (${only.name}/${inner}) instead of holding bin/${name} or ${name} at its root: extract it yourself and install ${only.name}/${inner} with 'chainvisor add-upgrade <name> <path>' (and tell the publisher)`;
        break;
      }
    }
  }
  return new BinaryNotFoundError(subject, name, shown, hint);
}
