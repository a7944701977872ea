/**
 * Names in the backup folder. A finished backup is `data-backup-<date>` (cosmovisor's name, so
 * operators and scripts find it where they always did). One being written is hidden under
 * `.data-backup-<date>.partial-<pid>-<random>` and renamed when whole, so a `data-backup-*` folder is
 * never half a copy; the pid tells a partial left by a crash from one another chainvisor (another home
 * sharing the backup folder) is still writing.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';

import { exists } from '../../shared/fsread/index.js';

/** cosmovisor's name: `data-backup-<year>-<month>-<day>` (Go layout 2006-1-2). */
function backupName(now: Date): string {
  return `data-backup-${now.getFullYear()}-${now.getMonth() + 1}-${now.getDate()}`;
}

/** The folder a new backup goes to: the day's name, or with the time appended when that exists. */
export async function backupTarget(backupDir: string, now: Date): Promise<string> {
  const target = path.join(backupDir, backupName(now));
  if (!(await exists(target))) return target;
  return `${target}-${now.toISOString().slice(11, 19).replaceAll(':', '')}`;
}

/**
 * When a backup was made, as well as its folder tells: the day its name gives — cosmovisor's
 * `data-backup-<year>-<month>-<day>` (Go's "%d-%d-%d" of the local date, month and day not padded),
 * chainvisor's with `-HHMMSS` on a day's second backup — and the folder's mtime within that day; the
 * day's local midnight when the mtime is another day (a folder copied or touched since); the mtime for
 * a name that gives no date.
 */
export function backupMadeAt(name: string, mtime: Date): Date {
  const match = /^data-backup-(\d{4})-(\d{1,2})-(\d{1,2})(?:-\d{6})?$/.exec(name);
  if (!match) return mtime;
  const [year, month, day] = [Number(match[1]), Number(match[2]) - 1, Number(match[3])];
  const start = new Date(year, month, day);
  if (start.getFullYear() !== year || start.getMonth() !== month || start.getDate() !== day) return mtime;
  return mtime >= start && mtime < new Date(year, month, day + 1) ? mtime : start;
}

export function partialPath(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.partial-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/**
 * The writer of a partial backup, from its name: `{ pid }`, or `{ pid: undefined }` for the names of
 * earlier chainvisor versions (no pid); undefined when the name is not a partial backup at all.
 */
export function partialOwner(name: string): { pid: number | undefined } | undefined {
  const match = /^\.data-backup-[^/]*\.partial-(?:(\d+)-)?[0-9a-f]{8}$/.exec(name);
  if (!match) return undefined;
  return { pid: match[1] === undefined ? undefined : Number(match[1]) };
}
