/**
 * Whether stderr is systemd's journal, and the syslog priorities its lines begin with (sd-daemon(3)).
 * Apart from the log's destination (log-journal.ts) so that the command's error report can use it
 * without loading pino.
 */
import fs from 'node:fs';

/** pino's levels as syslog priorities: fatal 2 (crit), error 3, warn 4, info 6, debug and trace 7. */
export function syslogPriority(level: number): number {
  if (level >= 60) return 2;
  if (level >= 50) return 3;
  if (level >= 40) return 4;
  if (level >= 30) return 6;
  return 7;
}

/**
 * Whether `fd` is the journal's stream: JOURNAL_STREAM (`<device>:<inode>`, set by systemd) names the
 * stream it connected, and a stderr redirected elsewhere by the unit or a shell does not match it.
 */
export function isJournalStream(fd: number, journalStream: string | undefined): boolean {
  const named = /^(\d+):(\d+)$/.exec(journalStream ?? '');
  if (named === null) return false;
  let stat: fs.BigIntStats;
  try {
    stat = fs.fstatSync(fd, { bigint: true });
  } catch {
    // A closed (or unexaminable) stderr is no journal; its lines go nowhere either way.
    return false;
  }
  return stat.dev === BigInt(named[1] ?? '') && stat.ino === BigInt(named[2] ?? '');
}
