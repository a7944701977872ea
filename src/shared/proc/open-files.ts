/**
 * The files a process holds open (Linux: the links under /proc/<pid>/fd). Undefined where /proc is
 * absent or hidden, or the process is gone: the caller then knows nothing, never "no files".
 */
import fs from 'node:fs/promises';

import { isErrno } from '../errors/index.js';

/** Errors of a /proc that is absent, hidden from this user, or of a process that has ended. */
const unreadable = ['ENOENT', 'EACCES', 'EPERM', 'ESRCH', 'ENOTDIR'];

export async function readOpenFiles(pid: number): Promise<string[] | undefined> {
  if (process.platform !== 'linux' || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
  const dir = `/proc/${pid}/fd`;
  let entries: string[];
  try {
    entries = await fs.readdir(dir);
  } catch (error) {
    if (unreadable.some((code) => isErrno(error, code))) return undefined;
    throw error;
  }
  const targets = await Promise.all(
    entries.map((fd) =>
      fs.readlink(`${dir}/${fd}`).catch((error: unknown) => {
        // A descriptor closed between the listing and its reading is simply not open any more.
        if (unreadable.some((code) => isErrno(error, code))) return undefined;
        throw error;
      }),
    ),
  );
  // Sockets and pipes are not paths; a file removed while open reads `<path> (deleted)`.
  return targets.filter((target): target is string => target?.startsWith('/') === true && !target.endsWith(' (deleted)'));
}
