/**
 * Writes checked archive entries into a fresh folder, for tar and zip alike, with the rules that keep
 * every write inside the folder: names checked, files created with O_EXCL, every symbolic link
 * resolved inside the folder, and sizes counted against CHAINVISOR_EXTRACT_MAX_BYTES.
 * Why, and the rest of its rules: docs/design/downloads.md#verifyarchivetree-writerts.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import { isErrno } from '../../shared/errors/index.js';
import { createBufferedWriter, makeFolders } from '../../shared/fswrite/index.js';
import { ArchiveInvalidError, ArchiveLimitError, ArchiveUnsafeError, type Subject } from '../errors.js';
import { createBudget, type ExtractLimits } from '../limits.js';
import { checkHardlinkTarget, checkSymlinkTarget, LinkTracker } from './entry-path.js';

export interface ExtractResult {
  entries: number;
  bytes: number;
}

export interface TreeWriter {
  /** Counts one entry against the entry cap. */
  count(): void;
  /** Adds declared bytes to the cap check before any are written (refuses a bomb at its header). */
  declare(bytes: number): void;
  dir(name: string): Promise<void>;
  /** Writes `data`; refuses more bytes than `declared` (when known) or than the cap. */
  file(name: string, mode: number, data: AsyncIterable<Buffer>, declared: number | undefined): Promise<void>;
  symlink(name: string, target: string): Promise<void>;
  hardlink(name: string, target: string): Promise<void>;
  /** Final check of every link; returns the totals. */
  finish(): Promise<ExtractResult>;
}

/** `signal` stops the file being written (the archive reader failed): nothing writes after it fires. */
export function createTreeWriter(subject: Subject, root: string, limits: ExtractLimits, signal?: AbortSignal): TreeWriter {
  const declared = createBudget(subject, limits);
  const written = createBudget(subject, limits);
  const links = new LinkTracker(subject);
  const symlinks: string[] = [];
  const abs = (name: string): string => path.join(root, ...name.split('/'));
  const parent = (name: string): Promise<string | undefined> => makeFolders(path.dirname(abs(name)), 0o755);

  return {
    count: () => declared.entry(),
    declare: (bytes) => declared.bytes(bytes),
    async dir(name) {
      if (name === '') return;
      links.add(name, 'dir');
      await makeFolders(abs(name), 0o755);
    },
    async file(name, mode, data, size) {
      links.add(name, 'file');
      await parent(name);
      // O_EXCL: never follow or replace something already at this path.
      const handle = await fs.open(abs(name), 'wx', safeMode(mode));
      const out = createBufferedWriter(handle);
      // A reader that fails mid-entry leaves its stream open: stop it so this loop ends.
      const stop = (): void => (data as { destroy?: () => void }).destroy?.();
      signal?.addEventListener('abort', stop, { once: true });
      let count = 0;
      try {
        for await (const chunk of data) {
          signal?.throwIfAborted();
          count += chunk.length;
          if (size !== undefined && count > size) {
            throw new ArchiveLimitError(subject, `entry ${JSON.stringify(name)} holds more than the ${size} bytes its header declares`, size, undefined);
          }
          written.bytes(chunk.length);
          await out.write(chunk);
        }
        signal?.throwIfAborted();
        await out.flush();
      } finally {
        signal?.removeEventListener('abort', stop);
        await handle.close();
      }
      if (size !== undefined && count !== size) {
        throw new ArchiveInvalidError(subject, `entry ${JSON.stringify(name)} holds ${count} bytes but its header declares ${size}`);
      }
    },
    async symlink(name, target) {
      checkSymlinkTarget(subject, name, target);
      links.add(name, 'link');
      await parent(name);
      await fs.symlink(target, abs(name));
      symlinks.push(name);
      await checkResolvesInside(subject, root, name);
    },
    async hardlink(name, target) {
      const source = checkHardlinkTarget(subject, name, target);
      links.checkHardlinkSource(name, source);
      links.add(name, 'file');
      await parent(name);
      await fs.link(abs(source), abs(name));
    },
    async finish() {
      for (const name of symlinks) await checkResolvesInside(subject, root, name);
      return { entries: declared.totals.entries, bytes: written.totals.bytes };
    },
  };
}

/** Permission bits only — no setuid/setgid/sticky (chainvisor may run as root) — and always owner rw. */
export function safeMode(mode: number): number {
  return (mode & 0o777) | 0o600;
}

/** Follows `name` link by link, as the kernel would, and refuses it if any step leaves `root`. */
async function checkResolvesInside(subject: Subject, root: string, name: string): Promise<void> {
  const escape = (): ArchiveUnsafeError =>
    new ArchiveUnsafeError(subject, name, 'link-escape', 'is a symbolic link that resolves outside the archive (through other links)');
  const pending = name.split('/');
  const current: string[] = [];
  let hops = 0;
  while (pending.length > 0) {
    const part = pending.shift() as string;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (current.length === 0) throw escape();
      current.pop();
      continue;
    }
    const full = path.join(root, ...current, part);
    let stat;
    try {
      stat = await fs.lstat(full);
    } catch (error) {
      if (!isErrno(error, 'ENOENT') && !isErrno(error, 'ENOTDIR')) throw error;
      // Dangling from here on: what remains is resolved by name only.
      current.push(part);
      continue;
    }
    if (!stat.isSymbolicLink()) {
      current.push(part);
      continue;
    }
    if (++hops > 40) throw new ArchiveUnsafeError(subject, name, 'link-escape', 'is part of a symbolic link loop');
    const target = await fs.readlink(full);
    if (path.isAbsolute(target)) throw escape();
    pending.unshift(...target.split(/[\\/]/));
  }
}
