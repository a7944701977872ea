/**
 * The node's log: one plain line per event on stderr, written synchronously so the last line before
 * an exit is never lost. Plain text (not JSON) so messages such as `UPGRADE "v2" NEEDED at height: 30`
 * appear exactly as real nodes print them.
 */
import { writeSync } from 'node:fs';

export type LogLevel = 'debug' | 'info' | 'error';
const rank: Readonly<Record<LogLevel, number>> = { debug: 0, info: 1, error: 2 };
const tag: Readonly<Record<LogLevel, string>> = { debug: 'DBG', info: 'INF', error: 'ERR' };

export type LogFields = Readonly<Record<string, string | number | boolean | undefined>>;

export interface SimLogger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export interface SimLoggerOptions {
  level?: LogLevel;
  /** Where lines go; defaults to stderr. */
  write?: (line: string) => void;
}

export function parseLogLevel(text: string): LogLevel | undefined {
  const lower = text.toLowerCase();
  return lower === 'debug' || lower === 'info' || lower === 'error' ? lower : undefined;
}

export function createSimLogger(options: SimLoggerOptions = {}): SimLogger {
  const min = rank[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => writeSync(2, line));
  const log =
    (level: LogLevel) =>
    (message: string, fields: LogFields = {}) => {
      if (rank[level] < min) return;
      const extra = Object.entries(fields)
        .filter(([, value]) => value !== undefined)
        .map(([key, value]) => ` ${key}=${String(value)}`)
        .join('');
      write(`${new Date().toISOString()} ${tag[level]} ${message}${extra}\n`);
    };
  return { debug: log('debug'), info: log('info'), error: log('error') };
}

export function silentSimLogger(): SimLogger {
  const none = (): void => {};
  return { debug: none, info: none, error: none };
}
