/**
 * The `current` link: which binary runs. chainvisor writes it as a RELATIVE link and replaces it in
 * one step (new link beside it, then rename over it), so a crash leaves the old link or the new one —
 * never none, which in cosmovisor (remove, then create) restarted the genesis binary.
 * Links written by cosmovisor (absolute) are read as well.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import { type Plan, readUpgradeInfo } from '../../chain/index.js';
import { ChainvisorError, ExitCode, isErrno, isFsError, layoutFsError } from '../../shared/errors/index.js';
import { fsyncDir, tempSibling } from '../../shared/fswrite/index.js';
import { isProcessAlive } from '../../shared/proc/index.js';
import { type BinaryDir, genesis, type Layout, planRecordPath } from './paths.js';

export interface Current {
  /** `genesis` or `upgrades/<dir>`. */
  dir: BinaryDir;
  /** The plan recorded in `current/upgrade-info.json`; absent for genesis or a hand-made folder. */
  plan: Plan | undefined;
}

export async function readCurrentDir(layout: Layout): Promise<BinaryDir> {
  let target: string;
  try {
    target = await fs.readlink(layout.currentLink);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return genesis; // no link yet means genesis
    if (isErrno(error, 'EINVAL')) {
      throw new ChainvisorError('CHAINVISOR_CURRENT_NOT_LINK', `${layout.currentLink} is not a symbolic link`, {
        hint: `move it aside and make 'current' a link to the folder of the binary this node runs now: ln -sfn upgrades/<last upgrade applied> ${layout.currentLink} (genesis only if no upgrade was ever applied: a chain past an upgrade cannot run genesis)`,
      });
    }
    throw isFsError(error) ? layoutFsError(layout.currentLink, 'read', error) : error;
  }
  const absolute = path.resolve(layout.root, target);
  const relative = path.relative(layout.root, absolute);
  const parts = relative.split(path.sep);
  const known = relative === genesis || (parts.length === 2 && parts[0] === 'upgrades' && parts[1] !== '');
  if (!known) {
    throw new ChainvisorError(
      'CHAINVISOR_CURRENT_OUTSIDE',
      `${layout.currentLink} points to ${target}, which is not genesis or a folder under ${layout.upgradesDir}`,
      {
        hint: `point it at the folder of the binary this node runs now: ln -sfn upgrades/<last upgrade applied> ${layout.currentLink} (genesis only if no upgrade was ever applied: a chain past an upgrade cannot run genesis)`,
      },
    );
  }
  return parts.join('/');
}

export async function readCurrent(layout: Layout): Promise<Current> {
  const dir = await readCurrentDir(layout);
  if (dir === genesis) return { dir, plan: undefined };
  const record = await readUpgradeInfo(planRecordPath(layout, dir));
  return { dir, plan: record.status === 'valid' ? record.plan : undefined };
}

/** Points `current` at `dir` atomically and durably: a new link beside it, renamed over it, the folder flushed. */
export async function switchCurrent(layout: Layout, dir: BinaryDir): Promise<void> {
  const temp = tempSibling(layout.currentLink);
  try {
    await fs.symlink(dir, temp);
  } catch (error) {
    throw isFsError(error) ? layoutFsError(temp, 'create', error, ExitCode.upgradeFailed) : error;
  }
  try {
    await fs.rename(temp, layout.currentLink);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw new ChainvisorError('CHAINVISOR_SWITCH_FAILED', `could not point ${layout.currentLink} at ${dir}: ${(error as Error).message}`, {
      hint:
        layoutFsError(layout.currentLink, 'replace', error as NodeJS.ErrnoException).hint ??
        "if 'current' is a real folder, move it aside; chainvisor manages it as a link",
      cause: error,
    });
  }
  await fsyncDir(layout.root);
}

/**
 * What a chainvisor killed in the middle of a switch leaves (`current` itself is whole: the old link or
 * the new one): the new link beside `current`, and the plan record's data in a temp file beside the
 * record (`upgrades/<name>/.upgrade-info.json.tmp-…`), which would also keep a later download from
 * finding an empty leftover folder empty. Removed at `run` start, with the home lock held, unless the
 * process named in the file is alive, is not this one and made it within the last minute (a concurrent
 * `init`). In a container chainvisor may get the same pid at every start: its own pid does not count.
 */
export async function removeLeftoverSwitchFiles(layout: Layout): Promise<string[]> {
  const removed: string[] = [];
  const candidates: { file: string; kind: 'link' | 'file' }[] = [];
  for (const name of await listNames(layout.root)) {
    if (name.startsWith(`.${path.basename(layout.currentLink)}.tmp-`)) candidates.push({ file: path.join(layout.root, name), kind: 'link' });
  }
  // Best effort in upgrades/: a folder that cannot be listed is reported when an upgrade needs it, not here.
  const folders = await fs.readdir(layout.upgradesDir, { withFileTypes: true }).catch(() => []);
  for (const folder of folders) {
    if (!folder.isDirectory()) continue;
    const dir = path.join(layout.upgradesDir, folder.name);
    for (const name of await fs.readdir(dir).catch(() => [])) {
      if (name.startsWith('.upgrade-info.json.tmp-')) candidates.push({ file: path.join(dir, name), kind: 'file' });
    }
  }
  for (const { file, kind } of candidates) {
    try {
      const stats = await fs.lstat(file);
      if (kind === 'link' ? !stats.isSymbolicLink() : !stats.isFile()) continue;
      const pid = Number(/\.tmp-(\d+)-[0-9a-f]+$/.exec(file)?.[1]);
      const recent = Date.now() - stats.mtimeMs < 60_000;
      if (Number.isSafeInteger(pid) && pid !== process.pid && recent && (await isProcessAlive(pid))) continue;
      await fs.rm(file, { force: true });
    } catch (error) {
      if (isErrno(error, 'ENOENT')) continue;
      throw isFsError(error) ? layoutFsError(file, 'remove', error) : error;
    }
    removed.push(file);
  }
  return removed;
}

/** The names in `dir`; none when it is missing or not a folder. */
async function listNames(dir: string): Promise<string[]> {
  try {
    return await fs.readdir(dir);
  } catch (error) {
    if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR')) return [];
    throw isFsError(error) ? layoutFsError(dir, 'list', error) : error;
  }
}
