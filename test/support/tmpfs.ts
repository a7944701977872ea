/** A small filesystem for the tests of a full disk, where this host allows one. */
import { execFileSync } from 'node:child_process';

/**
 * Mounts a tmpfs of `size` (and `inodes`, and mount `flags` such as `noexec`) at `dir`; false where this
 * host does not allow it (not root, no mounts).
 */
export function tryMountTmpfs(dir: string, size: string, inodes?: number, flags: string[] = []): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', [`size=${size}`, ...(inodes === undefined ? [] : [`nr_inodes=${inodes}`]), ...flags].join(','), 'tmpfs', dir], {
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
}
