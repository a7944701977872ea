/** Test data for the benchmarks: files of a given size whose bytes differ from file to file. */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';

const MiB = 1024 * 1024;

/** 4 MiB of pseudo-random bytes, rotated per file so no two files are equal. */
const block = Buffer.alloc(4 * MiB);
for (let i = 0; i < block.length; i += 32) createHash('sha256').update(`${i}`).digest().copy(block, i);

/** Writes `size` bytes to `file`; `seed` makes its content its own. */
export async function writeFile(file: string, size: number, seed: number): Promise<void> {
  const handle = await fs.open(file, 'w', 0o644);
  try {
    let left = size;
    let offset = (seed * 4099) % block.length;
    while (left > 0) {
      const n = Math.min(left, block.length - offset);
      await handle.write(block, offset, n);
      left -= n;
      offset = 0;
    }
  } finally {
    await handle.close();
  }
}
