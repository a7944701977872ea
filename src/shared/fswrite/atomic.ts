/**
 * Writes that are whole or absent: write a temporary file beside the target, flush it to disk,
 * rename it over the target, flush the folder. A crash leaves the old file or the new one, never half.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

import { ChainvisorError } from '../errors/index.js';
import { copyRegular } from '../fsread/index.js';

/**
 * `mkdir -p`, with the real reason when it fails: Node's asynchronous recursive mkdir reports a parent it
 * could not create as ENOENT whatever the cause, so a filesystem out of inodes read as "ENOENT … mkdir".
 * On that error the synchronous call (which reports ENOSPC, EACCES … as they are) runs once: an error path.
 */
export async function makeFolders(dir: string, mode?: number): Promise<string | undefined> {
  const options = mode === undefined ? { recursive: true } : { recursive: true, mode };
  try {
    return await fs.mkdir(dir, options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return mkdirSync(dir, options);
  }
}

/**
 * `.<name>.tmp-<pid>-<random>` beside `file`. The name is cut so the whole stays a file name (255
 * bytes): DAEMON_NAME itself may have 255 (issue 24: a long name passed `config`, then `init` failed).
 */
export function tempSibling(file: string): string {
  const suffix = `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  return path.join(path.dirname(file), `.${headBytes(path.basename(file), 255 - 1 - suffix.length)}${suffix}`);
}

/** The longest start of `text` that fits in `max` bytes of UTF-8, never cutting a character. */
function headBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  let out = '';
  let bytes = 0;
  for (const char of text) {
    bytes += Buffer.byteLength(char);
    if (bytes > max) break;
    out += char;
  }
  return out;
}

/** Flushes a folder: the names made or replaced in it survive a crash. */
export async function fsyncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Small files (a plan, a record, a config file): a temp file beside the target, written and flushed,
 * renamed over the target, the folder flushed.
 */
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

/**
 * Copies `source` to `dest` atomically, with the given mode. The source is read by the one rule of every
 * read (shared/fsread): a FIFO or a device put there after the caller looked is refused, never waited on
 * or copied for ever (CHAINVISOR_BINARY_NOT_FILE; the callers check the source first, so it is a race).
 */
export async function copyFileAtomic(source: string, dest: string, mode: number): Promise<void> {
  const temp = tempSibling(dest);
  try {
    const copy = await copyRegular(source, temp, { mode });
    if (copy.status === 'missing') throw new ChainvisorError('CHAINVISOR_BINARY_NOT_FOUND', `no file at ${source}`);
    if (copy.status === 'refused') throw new ChainvisorError('CHAINVISOR_BINARY_NOT_FILE', `${source} cannot be copied: ${copy.reason}`);
    await fs.chmod(temp, mode); // the umask cut the mode given at creation
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
