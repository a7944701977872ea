/**
 * Writes that are whole or absent: write a temporary file beside the target, flush it to disk,
 * rename it over the target, flush the folder. A crash leaves the old file or the new one, never half.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

export function tempSibling(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
}

export async function fsyncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function writeFileAtomic(file: string, data: string | Uint8Array, mode = 0o644): Promise<void> {
  const temp = tempSibling(file);
  try {
    const handle = await fs.open(temp, 'wx', mode);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  await fsyncDir(path.dirname(file));
}

/** Copies `source` to `dest` atomically, with the given mode. */
export async function copyFileAtomic(source: string, dest: string, mode: number): Promise<void> {
  const temp = tempSibling(dest);
  try {
    await fs.copyFile(source, temp);
    await fs.chmod(temp, mode);
    const handle = await fs.open(temp, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, dest);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  await fsyncDir(path.dirname(dest));
}

/**
 * Replaces `file` whole as readers see it (temp file + rename) without flushing it to disk: for runtime
 * state that means nothing after a reboot (the lock record, the node record), where an fsync would
 * only add milliseconds to a node start.
 */
export async function replaceFile(file: string, data: string, mode = 0o644): Promise<void> {
  const temp = tempSibling(file);
  try {
    await fs.writeFile(temp, data, { mode, flag: 'wx' });
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
}
