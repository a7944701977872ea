/** The upgrade sequence's logger, also keeping what a program it runs printed (for the report's log tail). */
import type { Logger } from '../shared/log.js';

/**
 * `logger`, also keeping the last 40 lines that a program run by the upgrade sequence printed
 * (src/supervisor/upgrade/run-logged.ts logs each as `{ source, stream }` and the line).
 */
export function keepingOutput(logger: Logger, source: string, lines: string[]): Logger {
  return new Proxy(logger, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property !== 'info' || typeof value !== 'function') return value;
      return (fields: unknown, message?: unknown, ...rest: unknown[]) => {
        if (typeof message === 'string' && (fields as { source?: unknown } | null)?.source === source) {
          lines.push(message);
          if (lines.length > 40) lines.shift();
        }
        return (value as (...args: unknown[]) => void).call(target, fields, message, ...rest);
      };
    },
  });
}
