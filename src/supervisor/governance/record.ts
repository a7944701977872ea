/**
 * What was already said of each proposal, across restarts: `upgrade-proposed` once per proposal,
 * `vote-missing` once, `proposal-problem` once per distinct problem (kept as its hash: a problem quotes
 * URLs of any length). Kept in `cosmovisor/.chainvisor/proposals-sent.json` until the proposal's voting
 * end has passed and it is no longer listed (a node that answers an empty list for a moment forgets
 * nothing). A record that cannot be read begins again (at worst a proposal is announced twice).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';

import * as v from 'valibot';

import { readRecord } from '../../shared/fsread/index.js';
import { makeFolders, writeFileAtomic } from '../../shared/fswrite/index.js';
import type { Logger } from '../../shared/log.js';

const recordFile = 'proposals-sent.json';

const entrySchema = v.strictObject({
  proposed: v.optional(v.boolean()),
  reminded: v.optional(v.boolean()),
  /** The problem last sent: the sha256 of its text. */
  problem: v.optional(v.pipe(v.string(), v.hexadecimal(), v.length(64))),
  /** The proposal's voting end (ms since the epoch): kept until then. */
  until: v.optional(v.pipe(v.number(), v.safeInteger())),
});
const recordSchema = v.record(v.pipe(v.string(), v.regex(/^\d{1,20}$/)), entrySchema);

export type SentEntry = v.InferOutput<typeof entrySchema>;

export interface SentRecord {
  get(id: string): SentEntry;
  /** Records what was said of `id` (written in the background, one write after another). */
  set(id: string, entry: SentEntry): void;
  /** Forgets the proposals not in `ids` whose voting end has passed (or is unknown). */
  keepOnly(ids: readonly string[], now: number): void;
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
    keepOnly(ids, now) {
      const keep = new Set(ids);
      const before = sent.size;
      for (const [id, entry] of [...sent]) if (!keep.has(id) && !((entry.until ?? 0) > now)) sent.delete(id);
      if (sent.size !== before) save();
    },
    settled: () => writing,
  };
}

/** The form a problem is recorded in. */
export function problemKey(problem: string): string {
  return createHash('sha256').update(problem).digest('hex');
}
