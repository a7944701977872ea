/**
 * chainvisor's log lines when stderr is systemd's journal: the text format's content (pino-pretty's
 * line) without colour and without a time of our own (the journal stamps every line), each line
 * prefixed with its syslog priority as sd-daemon(3) describes, so `journalctl -p warning` filters.
 * In-process: pino's metadata hook hands the stream each line's level; no worker thread.
 */
import { destination } from 'pino';
import type pinoPretty from 'pino-pretty';

import { syslogPriority } from './journal-stream.js';
import { shownMessage } from './log-message.js';

/** A pino destination writing journal lines to `fd`, synchronously (the last line before an exit is kept). */
export function journalDestination(fd: number, pretty: typeof pinoPretty): { write(line: string): void } {
  const format = pretty.prettyFactory({ colorize: false, ignore: 'time,pid,hostname,module', singleLine: true, messageFormat: shownMessage });
  const out = destination({ fd, sync: true });
  const stream = {
    [Symbol.for('pino.metadata')]: true,
    /** Set by pino before each write. */
    lastLevel: 30,
    write(line: string): void {
      const prefix = `<${syslogPriority(stream.lastLevel)}>`;
      // A stack or a multi-line field: every line of it is one journal entry, each with its priority.
      const lines = format(line).replace(/\n$/, '').split('\n');
      out.write(`${lines.map((l) => prefix + l).join('\n')}\n`);
    },
  };
  return stream;
}
