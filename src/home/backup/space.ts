/**
 * The free-space check made before a byte is written: what the backup will need on the backup
 * folder's filesystem against what `statfs` says is available to chainvisor. Needed, by mode:
 *   copy     every file, rounded up to the filesystem's block size;
 *   link     only the copied part (tables are links: no data blocks);
 *   reflink  one block per file (clones share the data blocks; only new metadata is written). Should
 *            a clone still be refused file by file, the copy that replaces it may run out of space:
 *            that ends as an ordinary failed backup (81, the partial copy removed).
 */
import fs from 'node:fs/promises';

import { ChainvisorError } from '../../shared/errors/index.js';
import { formatBytesExact } from '../../shared/units.js';
import { type BackupMode, isImmutableTable } from './place.js';
import type { Tree } from './tree.js';

export type StatfsFn = (dir: string) => Promise<{ bavail: number | bigint; bsize: number | bigint }>;

export function bytesNeeded(tree: Tree, mode: BackupMode, blockSize: number): number {
  const round = (n: number): number => Math.ceil(n / blockSize) * blockSize;
  let needed = tree.dirs.length * blockSize;
  for (const file of tree.files) {
    if (mode === 'reflink') needed += blockSize;
    else if (mode === 'link' && isImmutableTable(file.rel)) continue;
    else needed += round(file.size);
  }
  return needed;
}

export async function checkSpace(options: {
  tree: Tree;
  mode: BackupMode;
  backupDir: string;
  statfs?: StatfsFn;
}): Promise<{ needed: number; available: number }> {
  const stats = await (options.statfs ?? ((dir: string) => fs.statfs(dir)))(options.backupDir);
  const blockSize = Number(stats.bsize) || 4096;
  const available = Number(stats.bavail) * blockSize;
  const needed = bytesNeeded(options.tree, options.mode, blockSize);
  if (needed > available) {
    throw new ChainvisorError(
      'CHAINVISOR_BACKUP_NO_SPACE',
      `not enough space for the ${options.mode} backup of ${options.tree.dataDir} in ${options.backupDir}: it needs ${formatBytesExact(needed)}, ${formatBytesExact(available)} is available; nothing was written and nothing was switched`,
      {
        hint: `free ${formatBytesExact(needed - available)} or more in ${options.backupDir} (older data-backup-* folders; CHAINVISOR_BACKUP_KEEP removes them automatically), point DAEMON_DATA_BACKUP_DIR at a bigger disk, ${smallerMode(options.mode)}or set UNSAFE_SKIP_BACKUP=true; then start chainvisor again — the upgrade is applied at start-up`,
      },
    );
  }
  return { needed, available };
}

/**
 * Only a copy has a smaller mode to suggest: a link backup already links what it can, and a reflink
 * one needs less than a link one would.
 */
function smallerMode(mode: BackupMode): string {
  return mode === 'copy' ? "use CHAINVISOR_BACKUP_MODE=link with the backup folder on the data's filesystem, " : '';
}
