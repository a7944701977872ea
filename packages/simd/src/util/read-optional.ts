/** Reading a file that may not exist. */
import { readFile } from 'node:fs/promises';

import { isErrno } from './errors.js';

/** The file's text, or undefined when there is no file (other failures are thrown). */
export async function readOptional(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined;
    throw error;
  }
}
