/** A small filesystem for the tests of a full disk, where this host allows one. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';

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

/** Bytes in use on the filesystem of `mount`. */
export async function usedBytes(mount: string): Promise<number> {
  const s = await fs.statfs(mount);
  return (s.blocks - s.bfree) * s.bsize;
}

/** Runs `work`, sampling the use of `mount` every 25 ms: how much more it took at its peak than before. */
export async function peakGrowth<T>(mount: string, work: () => Promise<T>): Promise<{ result: T; grewBy: number }> {
  const before = await usedBytes(mount);
  let peak = before;
  const sample = (): void => void usedBytes(mount).then((n) => (peak = Math.max(peak, n)));
  const sampler = setInterval(sample, 25);
  try {
    const result = await work();
    return { result, grewBy: peak - before };
  } finally {
    clearInterval(sampler);
  }
}
