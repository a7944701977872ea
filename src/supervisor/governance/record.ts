/**
 * What was already said of each proposal, across restarts: `upgrade-proposed` once per proposal,
 * `vote-missing` once, `proposal-problem` once per distinct problem. Kept in
 * `cosmovisor/.chainvisor/proposals-sent.json`, only for the proposals still in their voting period.
 * A record that cannot be read begins again (at worst a proposal is announced twice).
 */
import path from 'node:path';

import * as v from 'valibot';

import { readRecord } from '../../shared/fsread/index.js';
import { makeFolders, writeFileAtomic } from '../../shared/fswrite/index.js';
import type { Logger } from '../../shared/log.js';

const recordFile = 'proposals-sent.json';

const entrySchema = v.strictObject({
  proposed: v.optional(v.boolean()),
  reminded: v.optional(v.boolean()),
  /** The problem last sent, as its text. */
  problem: v.optional(v.pipe(v.string(), v.maxLength(2000))),
});
const recordSchema = v.record(v.pipe(v.string(), v.regex(/^\d{1,20}$/)), entrySchema);

export type SentEntry = v.InferOutput<typeof entrySchema>;

export interface SentRecord {
  get(id: string): SentEntry;
  /** Records what was said of `id` (written in the background, one write after another). */
  set(id: string, entry: SentEntry): void;
  /** Forgets the proposals not in `ids` (their vote ended). */
  keepOnly(ids: readonly string[]): void;
  settled(): Promise<void>;
}

export async function loadSentRecord(options: { stateDir: string; logger: Logger }): Promise<SentRecord> {
  const { stateDir, logger } = options;
  const file = path.join(stateDir, recordFile);
  const read = await readRecord(file, recordSchema, 256 * 1024);
  if (read.status === 'damaged')
    logger.warn({ file, reason: read.reason }, 'the record of proposals announced %s cannot be read (%s): it begins again', file, read.reason);
  const sent = new Map<string, SentEntry>(read.status === 'ok' ? Object.entries(read.value) : []);
  let writing = Promise.resolve();
  const save = () => {
    const text = `${JSON.stringify(Object.fromEntries(sent), null, 2)}\n`;
    writing = writing.then(async () => {
      try {
        await makeFolders(stateDir);
        await writeFileAtomic(file, text);
      } catch (error) {
        logger.warn({ err: error, file }, 'the record of proposals announced could not be written: a restart may announce them again');
      }
    });
  };
  return {
    get: (id) => sent.get(id) ?? {},
    set(id, entry) {
      sent.set(id, entry);
      save();
    },
    keepOnly(ids) {
      const keep = new Set(ids);
      const before = sent.size;
      for (const id of [...sent.keys()]) if (!keep.has(id)) sent.delete(id);
      if (sent.size !== before) save();
    },
    settled: () => writing,
  };
}
