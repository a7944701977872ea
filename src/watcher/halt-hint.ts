/**
 * The file events of `data/`: a raw `fs.watch` on the folder whose events only say "look now".
 *
 * chokidar reports a new file in a watched folder after listing the folder again, about 2 ms after
 * the node's write on a 2-core machine (bench:switch); the kernel's own event arrives in well under
 * 0.1 ms. chokidar watches the home (a `data/` that appears later or is replaced, the ready state);
 * this watcher is re-armed on each `data/` it reports. When it cannot be armed, the poll covers.
 */
import { type FSWatcher, watch } from 'node:fs';

export interface FolderHint {
  /** True while the kernel's events of the folder arrive (armed, and no failure since). */
  readonly armed: boolean;
  close(): void;
}

/**
 * Calls `onHint` on each event about `name` in `folder` (or any event that names no file). A folder
 * that cannot be watched (no inotify watch left, no permission), or a watch that fails later, is
 * reported through `onFailure`; a folder that does not exist yet is not (the caller arms again when it
 * appears).
 */
export function watchFolderHint(folder: string, name: string, onHint: () => void, onFailure: (error: unknown) => void): FolderHint {
  let watcher: FSWatcher | undefined;
  const close = () => {
    watcher?.close();
    watcher = undefined;
  };
  try {
    watcher = watch(folder, { persistent: false }, (_event, filename) => {
      if (filename === null || filename === name) onHint();
    });
    // This watcher is dead (the folder removed, an inotify failure): the caller hears of it, and re-arms
    // it when chokidar sees a new folder; the poll covers meanwhile.
    watcher.on('error', (error) => {
      close();
      onFailure(error);
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') onFailure(error);
  }
  return {
    get armed() {
      return watcher !== undefined;
    },
    close,
  };
}
