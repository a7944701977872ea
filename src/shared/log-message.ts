/** The message of a human-readable log line (text or journal), which may quote outside text: no terminal escapes, no line of its own. */
import { shownLines } from './json.js';

export function shownMessage(log: Record<string, unknown>, messageKey: string): string {
  const message = log[messageKey];
  return shownLines(typeof message === 'string' ? message : message === undefined ? '' : JSON.stringify(message));
}
