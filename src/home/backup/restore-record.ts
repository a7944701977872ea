/**
 * The restores made, newest last: `cosmovisor/.chainvisor/restores.json` (`chainvisor status` shows the
 * last one). One entry per restore, written once its data is in place.
 *
 * Only a history, so a damaged one (issue #31) never stops a restore: it is set aside as
 * `restores.json.damaged-<time>` and a new history begins with this restore.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import * as v from 'valibot';

import { readRecord, recordFields } from '../../shared/fsread/index.js';
import { makeFolders, writeFileAtomic } from '../../shared/fswrite/index.js';
import type { Logger } from '../../shared/log.js';
import type { Layout } from '../layout/index.js';

export interface RestoreRecord {
  /** ISO time the restore finished. */
  time: string;
  backup: string;
  dataDir: string;
  /** Where the data it replaced went. */
  replaced: string;
  /** How the files were put back: clones or copies. */
  mode: 'reflink' | 'copy';
  bytes: number;
  files: number;
  durationSeconds: number;
  /** Which signing state was kept, and both heights (null: no such file). */
  signing: { kept: 'replaced' | 'backup' | 'none'; replacedHeight: string | null; backupHeight: string | null };
  current: { from: string; to: string };
}

const heightOrNull = v.nullable(v.pipe(v.string(), v.regex(/^\d{1,30}$/)));

/** Also the `record` of a restore journal (./restore-journal.ts). */
export const restoreRecordSchema = v.strictObject({
  time: v.string(),
  backup: recordFields.absolutePath,
  dataDir: recordFields.absolutePath,
  replaced: recordFields.absolutePath,
  mode: v.picklist(['reflink', 'copy']),
  bytes: recordFields.count,
  files: recordFields.count,
  durationSeconds: v.pipe(v.number(), v.finite(), v.minValue(0)),
  signing: v.strictObject({ kept: v.picklist(['replaced', 'backup', 'none']), replacedHeight: heightOrNull, backupHeight: heightOrNull }),
  current: v.strictObject({ from: recordFields.binaryDir, to: recordFields.binaryDir }),
});

function restoresPath(layout: Layout): string {
  return path.join(layout.stateDir, 'restores.json');
}

/** The restores recorded; a damaged history is set aside, said in the log, and read as none. */
async function readRestoreRecords(layout: Layout, logger?: Logger): Promise<RestoreRecord[]> {
  const file = restoresPath(layout);
  const read = await readRecord(file, v.array(restoreRecordSchema));
  if (read.status === 'missing') return [];
  if (read.status === 'ok') return read.value;
  const aside = `${file}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  await fs.rename(file, aside);
  logger?.warn(
    { file, aside, reason: read.reason },
    `the history of restores ${file} cannot be read (${read.reason}): set aside as ${aside}; a new one begins`,
  );
  return [];
}

/** Adds `record` (once: a restore finished again after a crash is not listed twice). */
export async function writeRestoreRecord(layout: Layout, record: RestoreRecord, logger?: Logger): Promise<void> {
  const list = (await readRestoreRecords(layout, logger)).filter((r) => r.replaced !== record.replaced);
  list.push({ ...record, time: new Date().toISOString() });
  await makeFolders(layout.stateDir);
  await writeFileAtomic(restoresPath(layout), `${JSON.stringify(list.slice(-20), null, 2)}\n`, 0o644);
}
