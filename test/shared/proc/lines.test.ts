import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';

import { eachLine } from '../../../src/shared/proc/index.js';

/** The lines `eachLine` gives for `chunks` written one by one, as [text, length]. */
async function linesOf(chunks: (string | Buffer)[], maxChars = 1 << 20): Promise<[string, number][]> {
  const stream = new PassThrough();
  const seen: [string, number][] = [];
  eachLine(stream, maxChars, (text, length) => seen.push([text, length]));
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  await once(stream, 'end');
  return seen;
}

async function readlineLines(chunks: (string | Buffer)[]): Promise<string[]> {
  const stream = new PassThrough();
  const seen: string[] = [];
  const rl = createInterface({ input: stream, crlfDelay: Infinity });
  rl.on('line', (line) => seen.push(line));
  const closed = once(rl, 'close');
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  await closed;
  return seen;
}

test('lines end at \\n, \\r\\n (also split across two reads) and a lone \\r; the last needs no end', async () => {
  const lines = await linesOf(['one\ntwo\r', '\nthree\rfour\r\n\nfive', ' six']);
  assert.deepEqual(
    lines.map(([text]) => text),
    ['one', 'two', 'three', 'four', '', 'five six'],
  );
  assert.deepEqual(await linesOf(['']), []);
  assert.deepEqual(await linesOf(['a\r']), [['a', 1]]);
});

test('a character split between two reads is whole', async () => {
  const bytes = Buffer.from('é€\n', 'utf8');
  const lines = await linesOf([bytes.subarray(0, 1), bytes.subarray(1, 3), bytes.subarray(3)]);
  assert.deepEqual(lines, [['é€', 2]]);
});

test('a long line keeps its first maxChars characters and reports its whole length', async () => {
  const block = 'x'.repeat(64 * 1024);
  const chunks = [...Array.from({ length: 160 }, () => block), '\nafter\n']; // 10 MiB without a newline
  const lines = await linesOf(chunks, 8192);
  assert.equal(lines.length, 2);
  assert.equal(lines[0]?.[0], 'x'.repeat(8192));
  assert.equal(lines[0]?.[1], 160 * block.length);
  assert.deepEqual(lines[1], ['after', 5]);
});

test('the same lines as readline (crlfDelay: Infinity) for random output cut at random places', async () => {
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const alphabet = ['a', 'b', 'é', '\n', '\r', '\r\n', ' '];
  for (let round = 0; round < 300; round++) {
    const text = Array.from({ length: random(60) }, () => alphabet[random(alphabet.length)]).join('');
    const bytes = Buffer.from(text, 'utf8');
    const chunks: Buffer[] = [];
    for (let at = 0; at < bytes.length;) {
      const size = 1 + random(8);
      chunks.push(bytes.subarray(at, at + size));
      at += size;
    }
    const mine = (await linesOf(chunks)).map(([line]) => line);
    assert.deepEqual(mine, await readlineLines(chunks), JSON.stringify(text));
  }
});
