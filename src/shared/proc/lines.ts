/**
 * A child's output, line by line, in bounded memory: lines end as readline's do (`\n`, `\r\n`, a lone
 * `\r`), and each keeps at most `maxChars` characters and reports its whole length.
 * Why, and the rest of its rules: docs/design/upgrade.md#sharedproclinests.
 */
import type { Readable } from 'node:stream';

/** `text` is the line's first `maxChars` characters; `length` its whole length. */
export type OnLine = (text: string, length: number) => void;

export function eachLine(stream: Readable, maxChars: number, onLine: OnLine): void {
  let kept = '';
  let length = 0;
  let pendingCr = false; // the last read ended with `\r`: a `\n` first in the next one belongs to it
  const add = (part: string) => {
    if (kept.length < maxChars) kept += part.length > maxChars - kept.length ? part.slice(0, maxChars - kept.length) : part;
    length += part.length;
  };
  const end = () => {
    onLine(kept, length);
    kept = '';
    length = 0;
  };
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    let from = 0;
    if (pendingCr) {
      pendingCr = false;
      if (chunk.startsWith('\n')) from = 1;
    }
    for (;;) {
      const lf = chunk.indexOf('\n', from);
      const cr = chunk.indexOf('\r', from);
      const at = cr !== -1 && (lf === -1 || cr < lf) ? cr : lf;
      if (at === -1) {
        add(chunk.slice(from));
        return;
      }
      add(chunk.slice(from, at));
      end();
      if (chunk[at] === '\r') {
        if (at + 1 === chunk.length) {
          pendingCr = true;
          return;
        }
        from = chunk[at + 1] === '\n' ? at + 2 : at + 1;
      } else from = at + 1;
    }
  });
  stream.on('end', () => {
    if (length > 0) end();
  });
}
