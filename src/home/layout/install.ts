/** Putting a binary in place: `init`, `add-upgrade` and downloads all end here. */
import fs from 'node:fs/promises';
import path from 'node:path';

import { ChainvisorError, ExitCode, isErrno, isFsError, layoutFsError } from '../../shared/errors/index.js';
import { sameContent } from '../../shared/fsread/index.js';
import { copyFileAtomic, makeFolders } from '../../shared/fswrite/index.js';
import { refuseEmptyBinary } from './binary-check.js';
import { type BinaryDir, binaryPath, genesis, type Layout } from './paths.js';

export interface InstallOptions {
  /** Replace an existing binary. */
  force: boolean;
  /** The upgrade the binary is for, as the operator wrote it: named in a refusal. */
  upgrade?: string;
}

/**
 * Copies an executable into `<dir>/bin/$DAEMON_NAME`, made executable, whole or not at all. The same
 * bytes already in place are nothing to do (`unchanged`: an Ansible re-run); a different binary is
 * refused without `force` (78: the home holds another binary, the command line is not wrong).
 */
export async function installBinary(layout: Layout, dir: BinaryDir, source: string, options: InstallOptions): Promise<{ dest: string; unchanged: boolean }> {
  await checkSourceBinary(source);
  const dest = binaryPath(layout, dir);
  try {
    await makeFolders(path.dirname(dest));
  } catch (error) {
    throw isFsError(error) ? layoutFsError(path.dirname(dest), 'create', error) : error;
  }
  if (!options.force && (await isFile(dest))) {
    if (await sameContent(source, dest)) return { dest, unchanged: true };
    const what = `a different ${dir === genesis ? 'genesis binary' : 'binary'} is already installed${options.upgrade === undefined ? '' : ` for upgrade "${options.upgrade}"`}`;
    throw new ChainvisorError('CHAINVISOR_ALREADY_INSTALLED', `${what} at ${dest}`, {
      hint: 'pass --force to replace it',
    });
  }
  try {
    await copyFileAtomic(source, dest, 0o755);
  } catch (error) {
    throw isFsError(error) ? layoutFsError(dest, 'write', error) : error;
  }
  return { dest, unchanged: false };
}

/** The file to install exists and is a non-empty regular file (anything else is a usage error, 64). */
export async function checkSourceBinary(source: string): Promise<void> {
  let stat;
  try {
    stat = await fs.stat(source);
  } catch (error) {
    if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR')) {
      throw new ChainvisorError('CHAINVISOR_BINARY_NOT_FOUND', `no file at ${source}`, {
        hint: 'give the path of the node binary to install',
      });
    }
    throw isFsError(error) ? layoutFsError(source, 'examine', error, ExitCode.usage) : error;
  }
  if (!stat.isFile()) {
    throw new ChainvisorError('CHAINVISOR_BINARY_NOT_FILE', `${source} is ${stat.isDirectory() ? 'a folder' : 'not a regular file'}`, {
      hint: 'give the path of the node binary itself, for example build/simd',
    });
  }
  refuseEmptyBinary(source, stat, ExitCode.usage, 'give the path of the built node binary; an empty file is a failed build or copy');
}

/** A regular file (links followed) is at `file`; a link loop or a denied folder is CHAINVISOR_LAYOUT_INVALID. */
export async function isFile(file: string): Promise<boolean> {
  try {
    return (await fs.stat(file)).isFile();
  } catch (error) {
    if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR')) return false;
    throw isFsError(error) ? layoutFsError(file, 'examine', error) : error;
  }
}
