/**
 * The fast path of detection: a raw `fs.watch` on `data/` whose events only say "look now".
 *
 * chokidar reports a new file in a watched folder after listing the folder again, about 2 ms after
 * the node's rename on a 2-core machine (bench:switch); the kernel's own event arrives in well under
 * 0.1 ms. chokidar stays the watcher of record (a `data/` that appears later, lost events, ready
 * state); this hint only makes the common case faster. Its failures are silent: chokidar and the poll
 * cover them.
 */
import { type FSWatcher, watch } from 'node:fs';

export interface FolderHint {
  close(): void;
}

/** Calls `onHint` on each event about `name` in `folder` (or any event that names no file). */
export function watchFolderHint(folder: string, name: string, onHint: () => void): FolderHint {
  let watcher: FSWatcher | undefined;
  const close = () => {
    watcher?.close();
    watcher = undefined;
  };
  try {
    watcher = watch(folder, { persistent: false }, (_event, filename) => {
      if (filename === null || filename === name) onHint();
    });
    // The folder removed or replaced: this watcher is dead; the caller re-arms it when chokidar sees a new one.
    watcher.on('error', close);
  } catch {
    // No such folder yet, or no inotify watch left: chokidar and the poll do the work.
  }
  return { close };
}
