/**
 * A restore's crash safety. The backup is copied into a work folder beside `data/`; only when the
 * copy is whole is `data/` renamed to `data.replaced-<time>` and the work folder to `data/`. A small
 * journal, `cosmovisor/.chainvisor/restore-journal.json`, says which phase was under way, so
 * whatever kills chainvisor leaves the original `data/` or the restored one, never a mix, and the
 * next `restore` or `run` finishes or undoes it (as partial backups are cleaned, ./partials.ts):
 * Why, and the rest of its rules: docs/design/backups.md#homebackuprestore-journalts.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import * as v from 'valibot';

import { ChainvisorError } from '../../shared/errors/index.js';
import { readRecord, recordFields } from '../../shared/fsread/index.js';
import { fsyncDir, makeFolders, writeFileAtomic } from '../../shared/fswrite/index.js';
import type { Logger } from '../../shared/log.js';
import { type Layout, readCurrentDir, switchCurrent } from '../layout/index.js';
import { type RestoreRecord, restoreRecordSchema, writeRestoreRecord } from './restore-record.js';
import type { KeptSigning, RestoreSigning } from './restore-signing.js';

export interface RestoreJournal {
  phase: 'copying' | 'swapping';
  dataDir: string;
  work: string;
  replaced: string;
  /** Where `current` goes once the data is in place; absent: left alone. */
  currentTo?: string | undefined;
  /** The signing state kept, for the sign guard's record. */
  signed?: KeptSigning | undefined;
  /** What `status` shows of the restore once done. */
  record: RestoreRecord;
}

/** `<data>.<kind>-<time>`: a folder beside the data folder, named after it. */
const beside = (dataDir: string, kind: 'restoring' | 'replaced', p: string): boolean =>
  path.dirname(p) === path.dirname(dataDir) && path.basename(p).startsWith(`${path.basename(dataDir)}.${kind}-`);

/** The journal's shape; its `signed` as the double-sign guard checks it. */
const journalSchema = (signed: RestoreSigning['keptSchema']) =>
  v.pipe(
    v.strictObject({
      phase: v.picklist(['copying', 'swapping']),
      dataDir: recordFields.absolutePath,
      work: recordFields.absolutePath,
      replaced: recordFields.absolutePath,
      currentTo: v.optional(recordFields.binaryDir),
      signed: v.optional(signed),
      record: restoreRecordSchema,
    }),
    // What is removed or renamed on its word: only the folders beside the data a restore makes.
    v.check(
      (j) => beside(j.dataDir, 'restoring', j.work) && beside(j.dataDir, 'replaced', j.replaced),
      'work and replaced are not the <data>.restoring-* and <data>.replaced-* folders beside its data folder',
    ),
    v.check((j) => j.record.dataDir === j.dataDir && j.record.replaced === j.replaced, 'its record names other folders'),
  );

export function journalPath(layout: Layout): string {
  return path.join(layout.stateDir, 'restore-journal.json');
}

export async function writeJournal(layout: Layout, journal: RestoreJournal): Promise<void> {
  await makeFolders(layout.stateDir);
  await writeFileAtomic(journalPath(layout), `${JSON.stringify(journal, null, 2)}\n`, 0o644);
}

/**
 * The journal of an interrupted restore; undefined when there is none (or no state folder at all: a
 * file in its place is `run`'s to report). Anything but a whole journal of this home's data (issue
 * #31) stops `restore` and `run`: which phase was under way cannot be told, and a journal is what says
 * which folders to remove or rename — a damaged one named data/ itself.
 */
async function readJournal(layout: Layout, signing: RestoreSigning): Promise<RestoreJournal | undefined> {
  const file = journalPath(layout);
  const read = await readRecord(file, journalSchema(signing.keptSchema));
  if (read.status === 'missing') return undefined;
  let reason = read.status === 'damaged' ? read.reason : undefined;
  if (read.status === 'ok' && !(await dataDirsOf(layout)).includes(read.value.dataDir)) {
    reason = `it is the journal of another data folder, ${read.value.dataDir} (copied from another home?)`;
  }
  if (read.status === 'ok' && reason === undefined) return read.value;
  throw new ChainvisorError(
    'CHAINVISOR_RESTORE_FAILED',
    `${file} records an interrupted restore but cannot be read: ${reason}; nothing was finished or undone`,
    {
      hint: `look beside ${layout.dataDir}: data.restoring-* is the copy (whole or partial), data.replaced-* the data set aside; put the data the node should run on as ${path.basename(layout.dataDir)}/, move the other folder away, then remove ${file} and start again`,
    },
  );
}

/**
 * The paths this home's data folder goes by: as configured, its real path, and — when data/ is a link
 * whose target a restore has just set aside — where the link leads. planRestore records the real path.
 */
async function dataDirsOf(layout: Layout): Promise<string[]> {
  const real = async (p: string): Promise<string> => {
    const parent = await fs.realpath(path.dirname(p)).catch(() => path.dirname(p));
    return path.join(parent, path.basename(p));
  };
  const names = [layout.dataDir, await real(layout.dataDir)];
  const target = await fs.readlink(layout.dataDir).catch(() => undefined);
  if (target !== undefined) names.push(await real(path.resolve(path.dirname(layout.dataDir), target)));
  const resolved = await fs.realpath(layout.dataDir).catch(() => undefined);
  if (resolved !== undefined) names.push(resolved);
  return names;
}

async function present(file: string): Promise<boolean> {
  return fs.lstat(file).then(
    () => true,
    () => false,
  );
}

/** The named steps after the copy, for tests that stop a restore at each. */
export type RestoreStep = 'copying' | 'copied' | 'set-aside' | 'restored' | 'current-switched' | 'done';

/** Everything after a whole copy: the two renames, `current`, the records; safe to run again after a crash. */
export async function completeSwap(
  layout: Layout,
  journal: RestoreJournal,
  options: { logger: Logger; signing: RestoreSigning; onStep?: ((step: RestoreStep) => void) | undefined },
): Promise<void> {
  const { dataDir, work, replaced } = journal;
  const { onStep } = options;
  const parent = path.dirname(dataDir);
  if ((await present(work)) && (await present(dataDir)) && !(await present(replaced))) {
    await fs.rename(dataDir, replaced);
    await fsyncDir(parent);
  }
  onStep?.('set-aside');
  if ((await present(work)) && !(await present(dataDir))) {
    await fs.rename(work, dataDir);
    await fsyncDir(parent);
  }
  onStep?.('restored');
  if (journal.currentTo !== undefined && (await readCurrentDir(layout)) !== journal.currentTo) await switchCurrent(layout, journal.currentTo);
  onStep?.('current-switched');
  if (journal.signed !== undefined) await options.signing.raise(journal.signed);
  await writeRestoreRecord(layout, journal.record, options.logger);
  await fs.rm(journalPath(layout), { force: true });
  onStep?.('done');
}

/** What `restore --dry-run` says of an interrupted restore, read only: the real restore finishes (`swapping`) or undoes (`copying`) it first. */
export async function pendingRestore(options: {
  layout: Layout;
  signing: RestoreSigning;
}): Promise<(Pick<RestoreJournal, 'phase' | 'work' | 'replaced'> & { backup: string }) | undefined> {
  const journal = await readJournal(options.layout, options.signing);
  return journal && { phase: journal.phase, work: journal.work, replaced: journal.replaced, backup: journal.record.backup };
}

/**
 * At the start of `restore` and `run`: a restore a crash interrupted is undone (the copy was not whole)
 * or finished (it was); said in the log. Returns what was done, if anything.
 */
export async function resumeInterruptedRestore(options: {
  layout: Layout;
  logger: Logger;
  signing: RestoreSigning;
}): Promise<'undone' | 'finished' | undefined> {
  const { layout, logger, signing } = options;
  const journal = await readJournal(layout, signing);
  if (journal === undefined) return undefined;
  if (journal.phase === 'copying') {
    await fs.rm(journal.work, { recursive: true, force: true });
    await fs.rm(journalPath(layout), { force: true });
    logger.warn(
      { work: journal.work, data: journal.dataDir },
      `undid a restore interrupted while copying: removed ${journal.work}; ${journal.dataDir} is the data as it was before that restore`,
    );
    return 'undone';
  }
  try {
    await completeSwap(layout, journal, { logger, signing });
  } catch (error) {
    throw new ChainvisorError(
      'CHAINVISOR_RESTORE_FAILED',
      `cannot finish the restore of ${journal.record.backup} that was interrupted after its copy was whole: ${(error as Error).message}`,
      { cause: error, hint: `fix the cause shown and start again: ${journal.work} is the whole copy, ${journal.replaced} the data it replaces` },
    );
  }
  logger.warn(
    { data: journal.dataDir, replaced: journal.replaced, backup: journal.record.backup },
    `finished a restore interrupted after its copy was whole: ${journal.dataDir} is the restored backup ${journal.record.backup}; the data it replaced is in ${journal.replaced}`,
  );
  return 'finished';
}
