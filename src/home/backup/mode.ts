/**
 * Which mode a backup uses. `auto` (the default) takes the fastest one that still leaves the backup
 * untouched by anything the upgraded node does to its data: reflink, then link, then copy.
 * Why, and the rest of its rules: docs/design/backups.md#homebackupmodets.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

import type { Logger } from '../../shared/log.js';
import type { BackupMode } from './place.js';
import type { Tree } from './tree.js';

export type RequestedMode = BackupMode | 'auto';

export interface ModeChoice {
  mode: BackupMode;
  /** Why, for the log. */
  reason: string;
}

export async function chooseMode(options: { requested: RequestedMode; tree: Tree; backupDir: string; logger: Logger }): Promise<ModeChoice> {
  const { requested, tree, backupDir, logger } = options;
  if (requested === 'copy') return { mode: 'copy', reason: 'CHAINVISOR_BACKUP_MODE=copy' };
  if (requested === 'link') return { mode: 'link', reason: 'CHAINVISOR_BACKUP_MODE=link' };
  const probe = await probeClone(tree, backupDir);
  if (requested === 'reflink') {
    if (probe.ok) return { mode: 'reflink', reason: 'CHAINVISOR_BACKUP_MODE=reflink' };
    logger.warn(
      { backupDir, code: probe.code },
      `CHAINVISOR_BACKUP_MODE=reflink, but ${backupDir} cannot clone files from the data (${probe.code}): copying instead`,
    );
    return { mode: 'copy', reason: `reflink refused (${probe.code})` };
  }
  if (probe.ok) return { mode: 'reflink', reason: 'auto: the backup folder supports copy-on-write clones' };
  if (await sameFilesystem(tree.root, backupDir)) return { mode: 'link', reason: `auto: no clones (${probe.code}), backup folder on the data's filesystem` };
  return { mode: 'copy', reason: `auto: no clones (${probe.code}), backup folder on another filesystem` };
}

/** Clones one real data file into the backup folder and removes the clone: the filesystem's own answer. */
async function probeClone(tree: Tree, backupDir: string): Promise<{ ok: true } | { ok: false; code: string }> {
  const sample = tree.files.findLast((f) => f.size > 0) ?? tree.files[0]; // the smallest (files are largest first)
  if (sample === undefined) return { ok: false, code: 'no files to clone' };
  const probe = path.join(backupDir, `.chainvisor-clone-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    await fs.copyFile(path.join(tree.root, sample.rel), probe, constants.COPYFILE_FICLONE_FORCE | constants.COPYFILE_EXCL);
    return { ok: true };
  } catch (error) {
    return { ok: false, code: (error as NodeJS.ErrnoException).code ?? String(error) };
  } finally {
    await fs.rm(probe, { force: true });
  }
}

async function sameFilesystem(a: string, b: string): Promise<boolean> {
  const [sa, sb] = await Promise.all([fs.stat(a), fs.stat(b)]);
  return sa.dev === sb.dev;
}
