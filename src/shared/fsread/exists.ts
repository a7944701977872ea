/** Whether anything (a file, a folder, a link, even a dangling one) is at a path. */
import fs from 'node:fs/promises';

import { isErrno } from '../errors/index.js';

/** False when nothing is there (ENOENT, or a file where a folder of the path should be); other errors are thrown. */
export async function exists(file: string): Promise<boolean> {
  try {
    await fs.lstat(file);
    return true;
  } catch (error) {
    if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR')) return false;
    throw error;
  }
}
