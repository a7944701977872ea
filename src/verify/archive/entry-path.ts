/**
 * The rules every archive entry obeys before anything is written, for tar and zip alike. Unlike
 * extractors that "sanitise" a bad path (strip the leading `/`, drop the `..`) and carry on, chainvisor
 * refuses the whole archive: a release archive with such an entry is broken or hostile, and an
 * operator should hear about it rather than get a half-guessed tree.
 */
import path from 'node:path';

import { ArchiveUnsafeError, type Subject } from '../errors.js';

/**
 * Checks an entry name and returns it normalised (`./bin//simd` → `bin/simd`), or '' for the root.
 * Backslashes count as separators: Windows-made zips use them, and `..\\x` must not slip through.
 */
export function checkEntryPath(subject: Subject, name: string): string {
  if (name.includes('\u0000') || /[\u0001-\u001f]/.test(name)) {
    throw new ArchiveUnsafeError(subject, name, 'bad-name', 'has control characters in its name');
  }
  const slashed = name.replaceAll('\\', '/');
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed)) {
    throw new ArchiveUnsafeError(subject, name, 'absolute-path', 'has an absolute path');
  }
  const parts = slashed.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) {
    throw new ArchiveUnsafeError(subject, name, 'parent-path', "has a '..' component (path traversal)");
  }
  return parts.join('/');
}

/**
 * A symbolic link must be relative and stay inside the archive once resolved from the folder that holds
 * it (`lib/libfoo.so -> libfoo.so.1` is fine; `x -> ../../etc` or `x -> /etc/passwd` is not).
 */
export function checkSymlinkTarget(subject: Subject, entry: string, target: string): void {
  const slashed = target.replaceAll('\\', '/');
  if (slashed === '' || slashed.includes('\u0000')) {
    throw new ArchiveUnsafeError(subject, entry, 'link-escape', 'is a symbolic link with an empty or invalid target');
  }
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed)) {
    throw new ArchiveUnsafeError(subject, entry, 'link-escape', `is a symbolic link to the absolute path ${JSON.stringify(target)}`);
  }
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(entry), slashed));
  if (resolved === '..' || resolved.startsWith('../')) {
    throw new ArchiveUnsafeError(subject, entry, 'link-escape', `is a symbolic link to ${JSON.stringify(target)}, outside the archive`);
  }
}

/** A hard link names another entry of the archive; it must be a plain relative path inside it. */
export function checkHardlinkTarget(subject: Subject, entry: string, target: string): string {
  const slashed = target.replaceAll('\\', '/');
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed)) {
    throw new ArchiveUnsafeError(subject, entry, 'link-escape', `is a hard link to the absolute path ${JSON.stringify(target)}`);
  }
  const parts = slashed.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..') || parts.length === 0) {
    throw new ArchiveUnsafeError(subject, entry, 'link-escape', `is a hard link to ${JSON.stringify(target)}, outside the archive`);
  }
  return parts.join('/');
}

/** Case- and Unicode-insensitive form: on macOS `Lib/x` goes through a link named `lib`. */
function foldCase(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

/**
 * Tracks the symbolic links already placed so that no later entry is written through one
 * (`dir -> elsewhere`, then `dir/file`): the classic way around per-entry path checks.
 */
export class LinkTracker {
  readonly #links = new Set<string>();
  readonly #seen = new Map<string, 'file' | 'dir' | 'link'>();

  constructor(private readonly subject: Subject) {}

  /** Call for each entry in order, with its normalised path and kind. */
  add(entry: string, kind: 'file' | 'dir' | 'link'): void {
    const parts = entry.split('/');
    for (let i = 1; i < parts.length; i++) {
      const prefix = parts.slice(0, i).join('/');
      if (this.#links.has(foldCase(prefix))) {
        throw new ArchiveUnsafeError(this.subject, entry, 'through-link', `would be written through the symbolic link ${JSON.stringify(prefix)}`);
      }
      if (this.#seen.get(prefix) === 'file') {
        throw new ArchiveUnsafeError(this.subject, entry, 'bad-name', `would be written inside the file ${JSON.stringify(prefix)}`);
      }
    }
    const before = this.#seen.get(entry);
    if (before !== undefined && !(before === 'dir' && kind === 'dir')) {
      // A repeated path could replace a checked file with a link, or a link with a file, after the checks.
      throw new ArchiveUnsafeError(this.subject, entry, 'duplicate', 'appears twice in the archive');
    }
    this.#seen.set(entry, kind);
    if (kind === 'link') this.#links.add(foldCase(entry));
  }

  /** A hard link may only name a regular file placed earlier (never a folder or a link). */
  checkHardlinkSource(entry: string, target: string): void {
    if (this.#seen.get(target) !== 'file') {
      throw new ArchiveUnsafeError(
        this.subject,
        entry,
        'link-escape',
        `is a hard link to ${JSON.stringify(target)}, which is not a file earlier in the archive`,
      );
    }
  }
}
