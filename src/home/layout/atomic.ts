/**
 * Writes that are whole or absent: write a temporary file beside the target, flush it to disk,
 * rename it over the target, flush the folder. A crash leaves the old file or the new one, never half.
 */
import { randomBytes } from 'node:crypto';
import { constants, mkdirSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

import { ChainvisorError } from '../../shared/errors/index.js';
import { copyRegular } from '../../shared/fsread/index.js';

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

export async function fsyncDir(dir: string): Promise<void> {
  await syncFolder(fs.open(dir, 'r'));
}

/**
 * Opens `dir` for a later flush (syncFolder): callers open it beside their first step, so that the
 * flush that ends a switch costs one trip through the thread pool instead of three.
 */
export function openFolder(dir: string): Promise<fs.FileHandle> {
  const opening = fs.open(dir, 'r');
  // Awaited by syncFolder, or closed by it when the caller gives up first.
  opening.catch(() => undefined);
  return opening;
}

/** Flushes a folder opened by openFolder; the close is left to run on its own (a read-only descriptor loses nothing). */
export async function syncFolder(opening: Promise<fs.FileHandle>): Promise<void> {
  const handle = await opening;
  try {
    await handle.sync();
  } finally {
    handle.close().catch(() => undefined);
  }
}

/** Closes a folder opened by openFolder without flushing it (the steps before the flush failed). */
export function dropFolder(opening: Promise<fs.FileHandle>): void {
  opening.then((handle) => handle.close()).catch(() => undefined);
}

// O_DSYNC: the write returns once its data is on disk, which saves the separate fsync's trip.
const createSynced = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_DSYNC;

/**
 * Small files (a plan, a record, a config file): temp file written with O_DSYNC, renamed over the
 * target, the folder flushed. Four trips through the thread pool in a row: open (the folder's open
 * beside it), write, rename (the close beside it), flush.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array, mode = 0o644): Promise<void> {
  await (await writeTempFile(file, data, mode)).commit();
}

export interface TempFile {
  /** Renames the written temp file over the target and flushes the folder. */
  commit(): Promise<void>;
  /**
   * commit() in two steps: the rename, then `flush` (call it once) for the folder. Between the two the
   * file is whole at its path, but a crash may still lose its new name.
   */
  place(): Promise<{ flush(): Promise<void> }>;
  /** Removes the temp file (once placed: closes what is left open); the target is left as it is. */
  abandon(): Promise<void>;
}

/**
 * The first half of writeFileAtomic, for callers that can write ahead of knowing whether the file
 * should exist: the data is on disk in a temp file beside `file`, which nobody reads, until commit().
 */
export async function writeTempFile(file: string, data: string | Uint8Array, mode = 0o644): Promise<TempFile> {
  const temp = tempSibling(file);
  const folder = openFolder(path.dirname(file));
  // Closed beside the next step: the data is on disk already (O_DSYNC).
  let closing: Promise<void> | undefined;
  try {
    const handle = await fs.open(temp, createSynced, mode);
    try {
      await handle.writeFile(data);
    } finally {
      closing = handle.close();
      closing.catch(() => undefined);
    }
  } catch (error) {
    await closing?.catch(() => undefined);
    dropFolder(folder);
    await fs.rm(temp, { force: true });
    throw error;
  }
  // staged: the temp file holds the data; placed: renamed over the target, the folder not yet flushed.
  let state: 'staged' | 'placed' | 'done' = 'staged';
  const place = async () => {
    if (state !== 'staged') throw new Error('staged file already committed or abandoned');
    state = 'placed';
    try {
      await Promise.all([closing, fs.rename(temp, file)]);
    } catch (error) {
      state = 'done';
      dropFolder(folder);
      await fs.rm(temp, { force: true });
      throw error;
    }
    return {
      flush: async () => {
        if (state !== 'placed') return;
        state = 'done';
        await syncFolder(folder);
      },
    };
  };
  return {
    place,
    async commit() {
      await (await place()).flush();
    },
    async abandon() {
      const was = state;
      state = 'done';
      // Placed and never flushed: only the folder's descriptor is left to close.
      if (was !== 'done') dropFolder(folder);
      if (was === 'staged') await fs.rm(temp, { force: true });
    },
  };
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
