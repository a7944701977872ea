/**
 * chainvisor's own logs: JSON lines on stderr (so they never mix into the node's stdout), readable
 * and optionally coloured when stderr is a terminal, plain with syslog priorities when it is systemd's
 * journal (log-journal.ts), silent when COSMOVISOR_DISABLE_LOGS is set.
 * Writes are synchronous so the last line before an exit is never lost.
 */
import { createRequire } from 'node:module';

import { destination, type Logger, pino } from 'pino';
import type pinoPretty from 'pino-pretty';

import { isJournalStream } from './journal-stream.js';
import { journalDestination } from './log-journal.js';
import { shownMessage } from './log-message.js';

// pino-pretty (and its dependencies) is loaded only for human-readable output (a terminal, the journal):
// written as JSON elsewhere, its memory (about 1.3 MiB private on Node 22) would sit there for nothing.
const requireCjs = createRequire(import.meta.url);

export type { Logger } from 'pino';

/** COSMOVISOR_TIMEFORMAT_LOGS values (Go's time layout names) → pino-pretty time masks. */
const timeFormats: Readonly<Record<string, string>> = {
  kitchen: 'h:MMTT',
  layout: "mm/dd hh:MM:ss'TT' yy o",
  ansic: 'ddd mmm d HH:MM:ss yyyy',
  unixdate: 'ddd mmm d HH:MM:ss Z yyyy',
  rubydate: 'ddd mmm dd HH:MM:ss o yyyy',
  rfc822: 'dd mmm yy HH:MM Z',
  rfc822z: 'dd mmm yy HH:MM o',
  rfc850: 'dddd, dd-mmm-yy HH:MM:ss Z',
  rfc1123: 'ddd, dd mmm yyyy HH:MM:ss Z',
  rfc1123z: 'ddd, dd mmm yyyy HH:MM:ss o',
  rfc3339: "yyyy-mm-dd'T'HH:MM:sso",
  rfc3339nano: "yyyy-mm-dd'T'HH:MM:ss.lo",
  stamp: 'mmm d HH:MM:ss',
  stampmilli: 'mmm d HH:MM:ss.l',
  datetime: 'yyyy-mm-dd HH:MM:ss',
  dateonly: 'yyyy-mm-dd',
  timeonly: 'HH:MM:ss',
};

export interface LoggerOptions {
  /** COSMOVISOR_DISABLE_LOGS. */
  disabled?: boolean;
  /** COSMOVISOR_COLOR_LOGS; only used for human-readable output. */
  color?: boolean;
  /** COSMOVISOR_TIMEFORMAT_LOGS, a key of `timeFormats`. */
  timeFormat?: string;
  /** Human-readable output; defaults to whether stderr is a terminal or the journal. */
  pretty?: boolean;
  /** JOURNAL_STREAM (default: the process's): when it names `fd`, human-readable output is the journal's. */
  journalStream?: string | undefined;
  /** Where to write; defaults to stderr (fd 2). */
  fd?: number;
  level?: string;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  if (options.disabled) return pino({ enabled: false });
  const fd = options.fd ?? 2;
  const level = options.level ?? 'info';
  const base = { module: 'chainvisor' };
  const journal = isJournalStream(fd, 'journalStream' in options ? options.journalStream : process.env.JOURNAL_STREAM);
  if (options.pretty ?? (process.stderr.isTTY || journal)) {
    // Under the journal even an explicit `text` has no colour codes nor a time of ours: the journal has its own.
    if (journal) return pino({ level, base, serializers }, journalDestination(fd, requireCjs('pino-pretty') as typeof pinoPretty));
    const mask = timeFormats[options.timeFormat ?? 'kitchen'] ?? timeFormats.kitchen;
    const pretty = requireCjs('pino-pretty') as typeof pinoPretty;
    const stream = pretty({
      destination: fd,
      sync: true,
      colorize: options.color ?? true,
      translateTime: `SYS:${mask}`,
      ignore: 'pid,hostname,module',
      singleLine: true,
      messageFormat: shownMessage,
    });
    return pino({ level, base, serializers }, stream);
  }
  return pino({ level, base, serializers }, destination({ fd, sync: true }));
}

const serializers = { err: serializeError };

/**
 * An error in a log line: what happened, without a stack for what chainvisor expects — an operating-system
 * error (ENOSPC on a state file, EACCES), a network error, a coded chainvisor error, a cancellation. An
 * operator reads those at the worst moment, and `node:internal` frames tell them nothing. Anything else
 * (a TypeError, Node's ERR_* argument errors) is a bug, and keeps its stack for the report.
 */
export function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const e = error as Error & Record<string, unknown>;
  const out: Record<string, unknown> = { type: e.name, message: e.message };
  for (const key of ['code', 'errno', 'syscall', 'path', 'dest', 'address', 'port', 'hint'] as const) if (e[key] !== undefined) out[key] = e[key];
  if (e.cause !== undefined) out.cause = e.cause instanceof Error ? serializeError(e.cause) : String(e.cause);
  if (error instanceof AggregateError) out.errors = error.errors.map(serializeError);
  if (!expected(e)) out.stack = e.stack;
  return out;
}

function expected(e: Error & Record<string, unknown>): boolean {
  if (e.name === 'AbortError' || e.name === 'TimeoutError' || e.name === 'ChainvisorError' || e.syscall !== undefined) return true;
  return typeof e.code === 'string' && /^(E[A-Z0-9]+$|CHAINVISOR_|UND_ERR_)/.test(e.code);
}

/** A logger that drops everything, for commands and tests that want no output. */
export function silentLogger(): Logger {
  return pino({ enabled: false });
}
