/**
 * How each regular file gets into the backup, by mode:
 *   copy     a full copy;
 *   reflink  a copy-on-write clone (FICLONE: shares the blocks until either side writes), else a copy;
 *   link     for immutable table files (`*.sst`, `*.ldb`) a hard link to the same inode, as RocksDB's
 *            checkpoints do; everything else (MANIFEST, CURRENT, LOG, the `*.log` write-ahead logs,
 *            OPTIONS, any non-database file) a copy, because those are rewritten or appended in place.
 * Where the filesystem refuses a clone or a hard link (no reflink support; the backup folder on another
 * filesystem: EXDEV) the file is copied instead, and the log says so once per reason, not 10,000 times.
 */
import { constants } from 'node:fs';
import fs from 'node:fs/promises';

import type { Logger } from '../../shared/log.js';
import { copyWhole } from './copy.js';
import type { TreeEntry } from './tree.js';

export type BackupMode = 'copy' | 'reflink' | 'link';

/** Table files LevelDB, goleveldb, RocksDB and PebbleDB write once and never modify, only delete. */
export function isImmutableTable(rel: string): boolean {
  return /\.(sst|ldb)$/.test(rel);
}

/** Errors by which a filesystem says "not here" to a clone. */
const cloneRefusals = new Set(['EOPNOTSUPP', 'ENOTSUP', 'EXDEV', 'EINVAL', 'ENOSYS', 'ENOTTY']);
/** Errors by which it says "not here" to a hard link (EPERM: filesystems without links, protected_hardlinks). */
const linkRefusals = new Set(['EXDEV', 'EPERM', 'EMLINK', 'EOPNOTSUPP', 'ENOTSUP']);

export interface PlaceCounts {
  linked: number;
  cloned: number;
  copied: number;
  /** Bytes written as new data (copies); clones and links write none. */
  copiedBytes: number;
}

export interface Placer {
  place(src: string, dst: string, entry: TreeEntry, onBytes: (n: number) => void): Promise<void>;
  counts: PlaceCounts;
}

export function createPlacer(options: { mode: BackupMode; logger: Logger; backupDir: string }): Placer {
  const { mode, logger } = options;
  const counts: PlaceCounts = { linked: 0, cloned: 0, copied: 0, copiedBytes: 0 };
  const said = new Set<string>();
  const fallback = (what: 'clone' | 'hard link', code: string, file: string): void => {
    const key = `${what}:${code}`;
    if (said.has(key)) return;
    said.add(key);
    const why = code === 'EXDEV' ? `${options.backupDir} is on another filesystem than the data` : `the filesystem refuses it (${code})`;
    logger.warn({ mode, code, file }, `cannot ${what} ${file}: ${why}; copying such files instead (said once for this backup)`);
  };
  const copy = async (src: string, dst: string, entry: TreeEntry, onBytes: (n: number) => void): Promise<void> => {
    await copyWhole(src, dst, entry, onBytes);
    counts.copied += 1;
    counts.copiedBytes += entry.size;
  };
  return {
    counts,
    async place(src, dst, entry, onBytes) {
      // A link or a clone the filesystem refuses falls back to a copy (once said); other errors are errors.
      const shared = async (how: 'hard link' | 'clone', refusals: Set<string>, make: () => Promise<void>): Promise<boolean> => {
        try {
          await make();
          onBytes(entry.size);
          return true;
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code ?? '';
          if (!refusals.has(code)) throw error;
          if (how === 'clone') await fs.rm(dst, { force: true });
          fallback(how, code, src);
          return false;
        }
      };
      if (mode === 'link' && isImmutableTable(entry.rel)) {
        if (
          await shared('hard link', linkRefusals, async () => {
            await fs.link(src, dst);
            counts.linked += 1;
          })
        )
          return;
      } else if (mode === 'reflink') {
        if (
          await shared('clone', cloneRefusals, async () => {
            await fs.copyFile(src, dst, constants.COPYFILE_FICLONE_FORCE | constants.COPYFILE_EXCL);
            await fs.utimes(dst, entry.atime, entry.mtime); // the mode came with the clone (as with copyFile)
            counts.cloned += 1;
          })
        )
          return;
      }
      await copy(src, dst, entry, onBytes);
    },
  };
}
